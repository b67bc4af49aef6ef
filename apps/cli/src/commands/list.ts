import type { WorkflowExecutionInfo } from '@temporalio/client';
import { encryptedDataConverter } from '@wharf/codec';
import { swarmSearchAttributes, type TaskCounts } from '@wharf/orchestrator';
import { connectServer } from '../connect-server.js';
import { listQuery } from '../list-query.js';
import { nestRuns } from '../nest-runs.js';
import { type CliIo, printJson } from '../output.js';
import { withServerHint } from '../server-hint.js';

/** The version of `wharf list --json`'s shape: a change that breaks a reader gets a new one. */
export const LIST_SCHEMA = 'wharf.list/v1';

/** One run as `wharf list --json` prints it (schema {@link LIST_SCHEMA}). */
export interface ListedRun {
  workflowId: string;
  runId: string;
  /** `WharfSwarm`: the swarm's name. */
  swarm: string | null;
  /** `WharfOwner`. */
  owner: string | null;
  /** Wharf's status (`running`, `waiting`, `supervising`, `completed`, `failed`), else how Temporal ended the run (`cancelled`, `terminated`, `timed-out`). */
  status: string;
  /** ISO times; `endedAt` and `durationMs` are null while it runs. */
  startedAt: string;
  endedAt: string | null;
  durationMs: number | null;
  /** `WharfRerunOf`: the run this one re-runs. */
  rerunOf: string | null;
  /**
   * The tasks done and failed (or cancelled) of all, from the memo's `taskCounts` (written as
   * the run goes and when it ends); null for a run that does not record them (started before).
   */
  tasks: TaskCounts | null;
  /** The run that started this one as a child (a `swarm:` task's run `<parent>/swarm/<task>`), else null. */
  parent: string | null;
}

/** Options of {@link listCommand}. */
export interface ListOptions {
  swarm?: string;
  owner?: string;
  status?: string;
  limit: number;
  json: boolean;
  address?: string;
  namespace?: string;
  dataDir?: string;
}

/**
 * `wharf list`: the most recent swarm runs first, by a visibility query on Wharf's search
 * attributes (`listQuery`; `--swarm`, `--owner`, `--status`), read page by page until `--limit`
 * runs, never a scan of every workflow. Prints a table (run, swarm, status, start, duration,
 * tasks done and failed from the memo), a `swarm:` task's child run indented under its parent
 * when both are listed, or with `--json` `{ schema: 'wharf.list/v1', query, runs: ListedRun[],
 * more }` (most recent first; `parent` names a child's parent run).
 */
export async function listCommand(options: ListOptions, io: CliIo): Promise<void> {
  const query = listQuery(options);
  const { connection, namespace, keyRing } = await withServerHint(
    connectServer(options),
    undefined,
    options.dataDir ?? '.wharf',
  );
  try {
    const { Client } = await import('@temporalio/client');
    // The memo (task counts) is encrypted when payloads are: read it with the same key ring.
    const client = new Client({
      connection,
      namespace,
      ...(keyRing === undefined ? {} : { dataConverter: encryptedDataConverter({ keyRing }) }),
    });
    const runs: ListedRun[] = [];
    let more = false;
    for await (const execution of client.workflow.list({
      query,
      pageSize: Math.min(options.limit + 1, 1000),
    })) {
      if (runs.length === options.limit) {
        more = true;
        break;
      }
      runs.push(listedRun(execution));
    }
    if (options.json) return printJson(io, { schema: LIST_SCHEMA, query, runs, more });
    if (runs.length === 0) {
      io.err(`wharf: no swarm runs match (${query})`);
      return;
    }
    // A swarm: task's child run right under its parent, indented.
    const rows = nestRuns(runs).map(({ run, depth }) => [
      depth === 0 ? run.workflowId : `${'  '.repeat(depth - 1)}↳ ${run.workflowId}`,
      run.swarm ?? '-',
      run.status,
      run.startedAt.replace('T', ' ').replace(/\.\d+Z$/, 'Z'),
      run.durationMs === null ? '-' : formatDuration(run.durationMs),
      formatCounts(run.tasks),
    ]);
    const header = ['RUN', 'SWARM', 'STATUS', 'STARTED', 'DURATION', 'TASKS'];
    const widths = header.map((title, column) =>
      Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
    );
    for (const row of [header, ...rows])
      io.out(
        row
          .map((cell, column) => cell.padEnd(widths[column] ?? 0))
          .join('  ')
          .trimEnd(),
      );
    if (more) io.err(`wharf: more runs match; --limit ${options.limit * 2} shows more`);
  } finally {
    await connection.close();
  }
}

/** A listed execution as {@link ListedRun}. */
function listedRun(execution: WorkflowExecutionInfo): ListedRun {
  const attributes = execution.typedSearchAttributes;
  const started = execution.startTime;
  const ended = execution.closeTime;
  return {
    workflowId: execution.workflowId,
    runId: execution.runId,
    swarm: attributes.get(swarmSearchAttributes.swarm) ?? null,
    owner: attributes.get(swarmSearchAttributes.owner) ?? null,
    status: statusOf(execution.status.name, attributes.get(swarmSearchAttributes.status)),
    startedAt: started.toISOString(),
    endedAt: ended?.toISOString() ?? null,
    durationMs: ended === undefined ? null : ended.getTime() - started.getTime(),
    rerunOf: attributes.get(swarmSearchAttributes.rerunOf) ?? null,
    tasks: countsOf(execution.memo?.taskCounts),
    parent: execution.parentExecution?.workflowId ?? null,
  };
}

/** The memo's `taskCounts`, when it holds three counts. */
function countsOf(value: unknown): TaskCounts | null {
  if (typeof value !== 'object' || value === null) return null;
  const { done, failed, total } = value as Record<string, unknown>;
  return typeof done === 'number' && typeof failed === 'number' && typeof total === 'number'
    ? { done, failed, total }
    : null;
}

/** `3/5 done, 1 failed`, `5/5 done`, or `-` when the run does not record its counts. */
function formatCounts(counts: TaskCounts | null): string {
  if (counts === null) return '-';
  return `${counts.done}/${counts.total} done${counts.failed === 0 ? '' : `, ${counts.failed} failed`}`;
}

/** Wharf's status while the run is open or ended with a result, else how Temporal ended it. */
function statusOf(execution: string, wharf: string | undefined): string {
  if (execution === 'CANCELLED') return 'cancelled';
  if (execution === 'TERMINATED') return 'terminated';
  if (execution === 'TIMED_OUT') return 'timed-out';
  return wharf ?? execution.toLowerCase();
}

function formatDuration(ms: number): string {
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 60) return `${minutes} min ${Math.round((ms % 60_000) / 1000)} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}
