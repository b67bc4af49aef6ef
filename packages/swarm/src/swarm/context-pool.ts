// Pure: the swarm's context pool and the rules that change it, each a function that returns
// the next pool and never changes the one it is given. Runs inside the workflow sandbox.

import type { TaskProgress } from '../contracts/progress-contracts.js';
import type {
  ContextPlan,
  ContextPool,
  ContextPoolEntry,
  PooledLoopOutput,
} from '../contracts/relevance-pool-contracts.js';
import type { SwarmDefinition } from '../contracts/swarm-schema.js';
import { isFinished } from '../contracts/task-status.js';
import { pruneContext } from '../relevance-pool/prune-context.js';

/**
 * Entries a swarm's context pool keeps at most unless the run is started with
 * `contextPoolCap`: about 75 KB of carried metadata, while a context shows at most
 * `max_context_tasks` of them. See {@link capPool}.
 *
 * @example
 * ```ts
 * capPool(pool, definition, taskProgress(state), DEFAULT_CONTEXT_POOL_CAP);
 * ```
 */
export const DEFAULT_CONTEXT_POOL_CAP = 500;

/** Context pool entries a loop keeps (its newest outputs): a context shows at most 10 outputs anyway. */
export const POOL_PER_LOOP = 10;

/** A `hooks.post_task` `checkpoint_and_prune` entry that is due. */
export interface DuePrune {
  /** The hook's index in `hooks.post_task`. */
  index: number;
  hook: NonNullable<SwarmDefinition['hooks']>['post_task'][number]['checkpoint_and_prune'];
  /** Outputs added to the pool since this hook last pruned. */
  sinceCheckpoint: number;
}

/** A pool after a rule removed entries from it (never from the store), and the task ids removed. */
export interface PoolRemoval {
  pool: ContextPool;
  removed: string[];
}

/** A finished output as the pool receives it. */
export type PooledOutput = Pick<ContextPoolEntry, 'taskId' | 'task' | 'outId'> & {
  agent?: string | undefined;
  /** When it finished, when not now: a re-run's reused output keeps the time it had in the run. */
  completedAt?: number | undefined;
};

/**
 * The pool of a swarm that has folded nothing yet.
 *
 * @example
 * ```ts
 * const pool = carried?.contextPool ?? emptyContextPool();
 * ```
 */
export function emptyContextPool(): ContextPool {
  return { entries: [], added: 0, checkpoints: [] };
}

/**
 * Adds finished outputs in order, each completed and last read at `now` (or at its own
 * `completedAt`: a reused output), not yet relevant to anything: one metadata entry per
 * output, never a body.
 *
 * @example
 * ```ts
 * addOutputs(emptyContextPool(), [{ taskId: 'fetch', task: 'fetch', outId: 'out_1' }], now).added; // 1
 * ```
 */
export function addOutputs(pool: ContextPool, outputs: readonly PooledOutput[], now: number): ContextPool {
  if (outputs.length === 0) return pool;
  const added = outputs.map(
    (output): ContextPoolEntry => ({
      taskId: output.taskId,
      task: output.task,
      outId: output.outId,
      completedAt: output.completedAt ?? now,
      lastAccessed: output.completedAt ?? now,
      relevanceScore: 0,
      ...(output.agent === undefined ? {} : { agent: output.agent }),
    }),
  );
  return { ...pool, entries: [...pool.entries, ...added], added: pool.added + outputs.length };
}

/**
 * Adds the outputs of a loop a re-run reuses whole as the run's pool held them (its newest
 * {@link POOL_PER_LOOP}, each at the time it entered that pool), and counts every output the
 * loop added there (`pooledCount`), so the pool's `added` (what `checkpoint_and_prune` hooks
 * count) is what it was in the run. Never one entry per instance.
 *
 * @example
 * ```ts
 * const pool = addReusedLoop(state.pool, 'fan', { pooled: [{ taskId: 'fan#499', outId: 'out_9', pooledAt }], pooledCount: 500 }, 'writer');
 * pool.entries.at(-1)?.completedAt; // pooledAt
 * ```
 */
export function addReusedLoop(
  pool: ContextPool,
  task: string,
  loop: { pooled?: readonly PooledLoopOutput[] | undefined; pooledCount?: number | undefined },
  agent: string | undefined,
): ContextPool {
  const pooled = (loop.pooled ?? []).slice(-POOL_PER_LOOP);
  if (pooled.length === 0) return pool;
  const added = addOutputs(
    pool,
    pooled.map(({ taskId, outId, pooledAt }) => ({ taskId, task, outId, agent, completedAt: pooledAt })),
    0,
  );
  const kept = keepNewest(added, task, POOL_PER_LOOP);
  return { ...kept, added: pool.added + Math.max(loop.pooledCount ?? pooled.length, pooled.length) };
}

/**
 * Keeps only the `count` newest entries of `task` (a loop's instances: its pool stays bounded
 * however many there are); pool order is kept.
 *
 * @example
 * ```ts
 * keepNewest(pool, 'fan', 10).entries.filter((entry) => entry.task === 'fan').length; // ≤ 10
 * ```
 */
export function keepNewest(pool: ContextPool, task: string, count: number): ContextPool {
  const seen = pool.entries.filter((entry) => entry.task === task).length;
  if (seen <= count) return pool;
  let drop = seen - count;
  const entries = pool.entries.filter((entry) => {
    if (entry.task !== task || drop === 0) return true;
    drop -= 1;
    return false;
  });
  return { ...pool, entries };
}

/**
 * Marks the outputs the plans chose as read at `now` (for LRU pruning), keeping each one's best
 * relevance.
 *
 * @example
 * ```ts
 * const plans = await port.planContext({ definition, pool, tasks, now });
 * state.pool = markRead(state.pool, plans, now);
 * ```
 */
export function markRead(
  pool: ContextPool,
  plans: Readonly<Record<string, ContextPlan>>,
  now: number,
): ContextPool {
  const read = new Map<string, number>();
  for (const plan of Object.values(plans)) {
    for (const entry of plan.entries)
      read.set(entry.taskId, Math.max(read.get(entry.taskId) ?? 0, entry.relevance));
  }
  if (read.size === 0) return pool;
  const entries = pool.entries.map((entry) => {
    const relevance = read.get(entry.taskId);
    if (relevance === undefined) return entry;
    return { ...entry, lastAccessed: now, relevanceScore: Math.max(entry.relevanceScore, relevance) };
  });
  return { ...pool, entries };
}

/**
 * The definition's `checkpoint_and_prune` hooks that are due: `every` outputs added since each
 * last pruned.
 *
 * @example
 * ```ts
 * for (const due of duePrunes(state.pool, definition)) await port.pruneContext({ …, hook: due.hook });
 * ```
 */
export function duePrunes(pool: ContextPool, definition: SwarmDefinition): DuePrune[] {
  const due: DuePrune[] = [];
  for (const [index, { checkpoint_and_prune: hook }] of (definition.hooks?.post_task ?? []).entries()) {
    const sinceCheckpoint = pool.added - (pool.checkpoints[index] ?? 0);
    if (sinceCheckpoint >= hook.every) due.push({ index, hook, sinceCheckpoint });
  }
  return due;
}

/**
 * Removes what hook `index` pruned (from the pool, never from the store) and checkpoints the
 * hook at `now`.
 *
 * @example
 * ```ts
 * state.pool = applyPrune(state.pool, due.index, await port.pruneContext(input), now);
 * ```
 */
export function applyPrune(
  pool: ContextPool,
  index: number,
  removed: readonly string[],
  now: number,
): ContextPool {
  const gone = new Set(removed);
  const checkpoints = [...pool.checkpoints];
  checkpoints[index] = pool.added;
  return {
    ...pool,
    entries: pool.entries.filter((entry) => !gone.has(entry.taskId)),
    checkpoints,
    lastPrunedAt: now,
  };
}

/**
 * Applies the swarm's `limits.cleanup_strategy` (never to the store): keeps the `keep_count`
 * most recent, last read or most relevant outputs, or those of tasks some task depends on, and
 * always the outputs of the tasks that the `pending` tasks (still to run) depend on. Removes
 * nothing without a strategy.
 *
 * @example
 * ```ts
 * const { pool, removed } = cleanUpPool(state.pool, definition, now, unfinishedTasks(state));
 * ```
 */
export function cleanUpPool(
  pool: ContextPool,
  definition: SwarmDefinition,
  now: number,
  pending: readonly string[] = [],
): PoolRemoval {
  const strategy = definition.limits?.cleanup_strategy;
  if (strategy === undefined || pool.entries.length === 0) return { pool, removed: [] };
  if (strategy.type !== 'direct_dependencies' && pool.entries.length <= strategy.keep_count)
    return { pool, removed: [] };
  const removed = pruneContext({
    definition,
    pool,
    hook: {
      every: 1,
      strategy: strategy.type,
      ...(strategy.type === 'direct_dependencies' ? {} : { keep_count: strategy.keep_count }),
    },
    sinceCheckpoint: 1,
    now,
    pending: [...pending],
  });
  if (removed.length === 0) return { pool, removed };
  const gone = new Set(removed);
  return {
    pool: { ...pool, entries: pool.entries.filter((entry) => !gone.has(entry.taskId)), lastPrunedAt: now },
    removed,
  };
}

/**
 * Keeps the pool at `cap` entries at most (removing from the pool, never from the store),
 * however long the swarm lives: first the outputs of tasks an unfinished task still reads (its
 * `depends_on` or `context.include_tasks`), newest first, then the newest of the rest. Pool
 * order is kept.
 *
 * @example
 * ```ts
 * state.pool = capPool(state.pool, definition, taskProgress(state), state.poolCap).pool;
 * ```
 */
export function capPool(
  pool: ContextPool,
  definition: SwarmDefinition,
  tasks: readonly Pick<TaskProgress, 'task' | 'status'>[],
  cap = DEFAULT_CONTEXT_POOL_CAP,
): PoolRemoval {
  const { entries } = pool;
  if (entries.length <= cap) return { pool, removed: [] };
  const read = new Set<string>();
  for (const { task, status } of tasks) {
    if (isFinished(status)) continue;
    const spec = definition.tasks[task];
    for (const name of [...(spec?.depends_on ?? []), ...(spec?.context?.include_tasks ?? [])]) read.add(name);
  }
  const kept = new Set<ContextPoolEntry>();
  for (const referenced of [true, false]) {
    for (let index = entries.length - 1; index >= 0 && kept.size < cap; index--) {
      const entry = entries[index];
      if (entry !== undefined && read.has(entry.task) === referenced) kept.add(entry);
    }
  }
  return {
    pool: { ...pool, entries: entries.filter((entry) => kept.has(entry)) },
    removed: entries.filter((entry) => !kept.has(entry)).map((entry) => entry.taskId),
  };
}
