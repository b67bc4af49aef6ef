import type { Logger, LogLevel, LogMetadata } from '@temporalio/common';
import { swarmFailedErrorType } from '@wharf/swarm';

/** Options of {@link swarmOutcomeLogger}. */
export interface SwarmOutcomeLoggerOptions {
  /**
   * How a swarm that ended failed is logged: `line` (default), one short line; `none`, not at
   * all, for a caller that reports the failure itself (`wharf run` prints the result).
   */
  swarmFailures?: 'line' | 'none';
  /**
   * How a failed activity is logged: `line` (default), one line the first time an activity of a
   * run fails with a given reason (its type, run and reason; the task's own failure is reported
   * with the result); `full`, the SDK's entry (task token, stack and all).
   */
  activityFailures?: 'line' | 'full';
}

/**
 * Wraps a worker logger so that a swarm ending failed (`WharfSwarmFailed`, an outcome the
 * caller reports with the result) logs one short line — workflow id and the failure's message
 * — instead of the SDK's stack trace, or nothing with `swarmFailures: 'none'`; and a failed
 * activity, and an agent task's workflow failing, in one line, once per run, type and reason (not the SDK's object of task
 * token, stack and details, again for each attempt); an activity completing after its run
 * was cancelled, at DEBUG. Every other entry passes through
 * unchanged, other workflows' failures included.
 *
 * @example
 * ```ts
 * Runtime.install({ logger: swarmOutcomeLogger(new DefaultLogger('WARN'), { swarmFailures: 'none' }) });
 * ```
 */
export function swarmOutcomeLogger(base: Logger, options: SwarmOutcomeLoggerOptions = {}): Logger {
  const seen = new Set<string>();
  const log = (level: LogLevel, message: string, meta?: LogMetadata): void => {
    // An activity that finished after its run was cancelled or terminated (`wharf cancel`): the
    // server has nothing to hand the result to, which is what the user asked for. What the
    // activity stored stays in the output store; the entry is kept at DEBUG, in one line.
    if (message.startsWith('Activity not found on completion') && options.activityFailures !== 'full') {
      base.log(
        'DEBUG',
        'An activity finished after its run had ended (cancelled or terminated); its result was dropped',
      );
      return;
    }
    if (message === 'Activity failed' && options.activityFailures !== 'full') {
      const reason = firstLine((meta?.error as { message?: unknown } | undefined)?.message);
      const line = `Activity failed: ${String(meta?.activityType ?? 'activity')} of ${String(meta?.workflowId ?? 'a workflow')}: ${reason}`;
      if (seen.has(line)) return;
      if (seen.size >= 1_000) seen.clear();
      seen.add(line);
      base.log(level, line);
      return;
    }
    // An agent task's workflow failing is its task failing: the swarm's result reports it.
    if (
      message === 'Workflow failed' &&
      meta?.workflowType === 'agentTaskWorkflow' &&
      options.activityFailures !== 'full'
    ) {
      const line = `Workflow failed: agent task ${String(meta.workflowId)}: ${firstLine(deepestMessage(meta.error))}`;
      if (seen.has(line)) return;
      seen.add(line);
      base.log(level, line);
      return;
    }
    if (message === 'Workflow failed' && isSwarmOutcome(meta)) {
      if (options.swarmFailures === 'none') return;
      const error = meta?.error as { message?: unknown };
      base.log(level, message, { workflowId: meta?.workflowId, error: String(error.message) });
      return;
    }
    base.log(level, message, meta);
  };
  return {
    log,
    trace: (message, meta) => log('TRACE', message, meta),
    debug: (message, meta) => log('DEBUG', message, meta),
    info: (message, meta) => log('INFO', message, meta),
    warn: (message, meta) => log('WARN', message, meta),
    error: (message, meta) => log('ERROR', message, meta),
  };
}

/**
 * The failure a swarm ends with. Logged from the workflow thread, the error may arrive as a
 * structured clone that lost its `type`; its message (from `describeSwarmFailure`) remains.
 */
function isSwarmOutcome(meta: LogMetadata | undefined): boolean {
  const error = meta?.error as { type?: unknown; message?: unknown } | undefined;
  if (error?.type === swarmFailedErrorType) return true;
  return (
    meta?.workflowType === 'swarmWorkflow' &&
    typeof error?.message === 'string' &&
    /^swarm .+ failed: /.test(error.message)
  );
}

function firstLine(message: unknown): string {
  const text = typeof message === 'string' ? message : String(message ?? 'no reason given');
  const line = text.split('\n', 1)[0] ?? '';
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

/** The message of an error's last cause (the reason behind "Activity task failed"). */
function deepestMessage(error: unknown): unknown {
  let current = error as { message?: unknown; cause?: unknown } | undefined;
  for (let depth = 0; current?.cause !== undefined && current.cause !== null && depth < 5; depth++)
    current = current.cause as { message?: unknown; cause?: unknown };
  return current?.message;
}
