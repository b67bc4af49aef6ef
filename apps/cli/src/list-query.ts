import { CliError } from './cli-error.js';

/** The statuses `wharf list --status` takes: Wharf's own (`WharfStatus`) and how a run ended without a result. */
export const LIST_STATUSES = [
  'running',
  'waiting',
  'supervising',
  'completed',
  'failed',
  'cancelled',
  'terminated',
  'timed-out',
] as const;

/** One of {@link LIST_STATUSES}. */
export type ListStatus = (typeof LIST_STATUSES)[number];

/** Temporal's execution status for the statuses no swarm writes itself. */
const ended: Partial<Record<ListStatus, string>> = {
  cancelled: 'Canceled',
  terminated: 'Terminated',
  'timed-out': 'TimedOut',
};

/**
 * The visibility query of `wharf list`: swarm runs (`WorkflowType = 'swarmWorkflow'`), by
 * Wharf's search attributes (`WharfSwarm`, `WharfOwner`, `WharfStatus`), or by Temporal's
 * `ExecutionStatus` for a run that ended without a result (cancelled, terminated, timed out).
 * Values are quoted, so a name cannot change the query. An unknown status is a usage error.
 *
 * @example
 * ```ts
 * listQuery({ swarm: 'etl', status: 'waiting' });
 * // `WorkflowType = 'swarmWorkflow' AND ExecutionStatus != "ContinuedAsNew" AND WharfSwarm = "etl" AND WharfStatus = "waiting" AND ExecutionStatus = "Running"`
 * ```
 */
export function listQuery(filters: { swarm?: string; owner?: string; status?: string }): string {
  // A chain's earlier runs (continued as new) are not runs of their own.
  const parts = [`WorkflowType = 'swarmWorkflow'`, `ExecutionStatus != "ContinuedAsNew"`];
  if (filters.swarm !== undefined) parts.push(`WharfSwarm = ${quoted(filters.swarm)}`);
  if (filters.owner !== undefined) parts.push(`WharfOwner = ${quoted(filters.owner)}`);
  const { status } = filters;
  if (status !== undefined) {
    if (!(LIST_STATUSES as readonly string[]).includes(status))
      throw new CliError(
        'USAGE',
        `--status ${JSON.stringify(status)} is not a status; statuses: ${LIST_STATUSES.join(', ')}`,
      );
    const execution = ended[status as ListStatus];
    if (execution !== undefined) parts.push(`ExecutionStatus = ${quoted(execution)}`);
    else {
      parts.push(`WharfStatus = ${quoted(status)}`);
      // A run stopped from outside keeps the status it last wrote: only open runs are running.
      if (['running', 'waiting', 'supervising'].includes(status)) parts.push(`ExecutionStatus = "Running"`);
    }
  }
  return parts.join(' AND ');
}

function quoted(value: string): string {
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}
