import type { RunEvent } from '@wharf/orchestrator';
import { withClient } from '../connect-server.js';
import type { CliIo } from '../output.js';

/** Options of {@link eventsCommand}. */
export interface EventsCommandOptions {
  address?: string;
  namespace?: string;
  /** Resume after this sequence number. */
  after: number;
  /** One JSON object per line (`wharf.events/v1`) instead of a readable line. */
  json: boolean;
}

/**
 * `wharf events <run>`: prints a run's event stream (`WharfClient.events`) from the start, or
 * after `--after <seq>`, following it until the run ends (Ctrl-C stops reading; the run goes on).
 *
 * @example
 * ```ts
 * await eventsCommand('etl-2026', { after: 12, json: true }, io);
 * ```
 */
export async function eventsCommand(
  workflowId: string,
  options: EventsCommandOptions,
  io: CliIo,
): Promise<void> {
  const stop = new AbortController();
  const interrupt = () => stop.abort();
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  try {
    await withClient(options, async (wharf) => {
      for await (const event of wharf.events(workflowId, { after: options.after, signal: stop.signal }))
        io.out(options.json ? JSON.stringify(event) : eventLine(event));
    });
  } finally {
    process.off('SIGINT', interrupt);
    process.off('SIGTERM', interrupt);
  }
}

/**
 * One event as a readable line: its number, time, type, and what it concerns.
 *
 * @example
 * ```ts
 * eventLine(event); // '7  12:01:02  task.failed  broken  exit 3 · disk on fire'
 * ```
 */
export function eventLine(event: RunEvent): string {
  const what = (() => {
    switch (event.type) {
      case 'run.started':
        return event.summary ?? '';
      case 'run.continued':
        return `as ${event.newRunId}`;
      case 'run.ended':
        return `${event.status}${event.reason === undefined ? '' : ` · ${event.reason}`}`;
      case 'task.started':
        return `${event.label}  ${event.kind}`;
      case 'task.finished':
        return `${event.label}  ${event.outIds.join(' ')}`;
      case 'task.failed':
        return `${event.label}  ${event.reason}`;
      case 'task.cancelled':
        return event.label;
      case 'approval.waiting':
        return `${event.task}${event.callId === undefined ? '' : ` --call ${event.callId} (${event.tool ?? 'tool'})`}`;
      case 'approval.answered':
        return `${event.task}${event.callId === undefined ? '' : ` --call ${event.callId}`}${event.decision === undefined ? '' : `  ${event.decision}`}`;
      case 'agent.step':
        return `${event.label}  step ${event.step} · ${event.finishReason}${event.toolCalls.length === 0 ? '' : ` · ${event.toolCalls.join(', ')}`}`;
      case 'tool.called':
        return `${event.label}  ${event.tool} ${event.callId} · ${event.bytes} B${event.failed ? ' · failed' : ''}${event.truncated ? ' · cut' : ''}`;
    }
  })();
  return `${event.seq}  ${event.time.slice(11, 19)}  ${event.type}  ${what}`.trimEnd();
}
