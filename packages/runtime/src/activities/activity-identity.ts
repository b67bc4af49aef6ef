import { createHash } from 'node:crypto';
import type { IdempotencyScope } from '@wharf/output-store';
import type { SubagentInput } from '@wharf/swarm';
import { isLooped } from '@wharf/swarm';

const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/**
 * An id safe for artifact stores and evidence markers (letters, digits, `._:-`, ≤ 128
 * characters): `value` itself when it already is one, else a readable prefix plus a hash.
 *
 * @example
 * ```ts
 * safeId('repo-health/2026'); // 'repo-health_2026-1f3a9c2b'
 * ```
 */
export function safeId(value: string): string {
  if (SAFE_ID.test(value)) return value;
  const readable = value
    .replace(/[^A-Za-z0-9._:-]/g, '_')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, 100);
  const hash = createHash('sha256').update(value).digest('hex').slice(0, 8);
  return `${readable || 'id'}-${hash}`;
}

/** The ids one subagent run is known by in the stores. */
export interface SubagentIds {
  /** `task` or `task.<instance>` for loop instances: the evidence job id. */
  jobId: string;
  /** Unique across runs: `<run>:<job>`. */
  workerId: string;
  /** The stores' run scope: the swarm's workflow id, made safe for paths. */
  runId: string;
  ownerId: string;
  /** Prefix of the EMIT idempotency keys: the same for every retry of this activity. */
  emitKeyPrefix: string;
}

/**
 * Derives the ids of a subagent run from its input and the activity's identity
 * (workflow id, run id, activity id), which Temporal keeps across retries.
 *
 * @example
 * ```ts
 * const ids = subagentIds(input, { workflowId, runId, activityId });
 * ```
 */
export function subagentIds(
  input: Pick<SubagentInput, 'task' | 'instance' | 'workflowId' | 'ownerId' | 'definition'>,
  activity: { workflowId: string; runId: string; activityId: string },
): SubagentIds {
  // Every instance of a map loop is its own job, even when the list has one item.
  const jobId = taskJobId(input.task, isLooped(input.definition) ? input.instance : undefined);
  const runId = safeId(input.workflowId);
  return {
    jobId,
    workerId: safeId(`${runId}:${jobId}`),
    runId,
    ownerId: safeId(input.ownerId),
    emitKeyPrefix: `${activity.workflowId}/${activity.runId}/${activity.activityId}`,
  };
}

/**
 * The evidence job id of a task's worker: `task`, or `task.<instance>` for a loop's instance
 * (from 0), made safe ({@link safeId}). What `get_worker_evidence` by task and instance looks for.
 *
 * @example
 * ```ts
 * taskJobId('line_counts', 417); // 'line_counts.417'
 * taskJobId('summary', undefined); // 'summary'
 * ```
 */
export function taskJobId(task: string, instance: number | undefined): string {
  return safeId(instance === undefined ? task : `${task}.${instance}`);
}

/**
 * The output store scope of a subagent's EMIT idempotency keys: its producer's owner, run and
 * job, so a lookup by key finds only what this subagent stored.
 *
 * @example
 * ```ts
 * const ref = await store.findByIdempotencyKey(emitScope(ids), `${ids.emitKeyPrefix}/0`);
 * ```
 */
export function emitScope(ids: Pick<SubagentIds, 'ownerId' | 'runId' | 'jobId'>): IdempotencyScope {
  return { ownerId: ids.ownerId, runId: ids.runId, spawnId: ids.jobId };
}
