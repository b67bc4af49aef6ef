import type { ContextPoolEntry, PruneContextInput } from '../contracts/relevance-pool-contracts.js';
import type { SwarmDefinition } from '../contracts/swarm-schema.js';

const byTaskId = (a: ContextPoolEntry, b: ContextPoolEntry) =>
  a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : 0;
const orders = {
  most_recent: (a: ContextPoolEntry, b: ContextPoolEntry) => b.completedAt - a.completedAt || byTaskId(a, b),
  lru: (a: ContextPoolEntry, b: ContextPoolEntry) =>
    b.lastAccessed - a.lastAccessed || b.completedAt - a.completedAt || byTaskId(a, b),
  highest_relevance: (a: ContextPoolEntry, b: ContextPoolEntry) =>
    b.relevanceScore - a.relevanceScore || b.completedAt - a.completedAt || byTaskId(a, b),
};

/**
 * The tasks that the `pending` tasks (still to run) depend on directly: pruning keeps their
 * outputs, so a task's context can still show what it depends on.
 *
 * @example
 * ```ts
 * dependenciesOfPending(definition, ['report']); // Set { 'clean' }
 * ```
 */
export function dependenciesOfPending(
  definition: Pick<SwarmDefinition, 'tasks'>,
  pending: Iterable<string>,
): Set<string> {
  const needed = new Set<string>();
  for (const task of pending) for (const name of definition.tasks[task]?.depends_on ?? []) needed.add(name);
  return needed;
}

/**
 * The task ids a `checkpoint_and_prune` hook removes from the pool, in pool order; none before
 * `every` outputs were added since the hook last pruned. `most_recent` keeps the `keep_count`
 * (default 20) last finished, `lru` the last placed in a context, `highest_relevance` the
 * highest scores (ties: most recent, then task id), `direct_dependencies` the outputs of tasks
 * some task depends on. Whatever the strategy, the outputs of the tasks that a task still to
 * run (`pending`) depends on stay (see {@link dependenciesOfPending}). The outputs stay in the
 * store.
 *
 * @example
 * ```ts
 * pruneContext({ definition, pool, hook: { every: 10, strategy: 'most_recent', keep_count: 5 }, sinceCheckpoint: 10, now });
 * // ['fetch#0', 'fetch#1', …]
 * ```
 */
export function pruneContext(input: PruneContextInput): string[] {
  if (input.sinceCheckpoint < input.hook.every) return [];
  const byId = new Map<string, ContextPoolEntry>();
  for (const entry of input.pool.entries) byId.set(entry.taskId, entry);
  const entries = [...byId.values()];
  let keep: (entry: ContextPoolEntry) => boolean;
  const stillRead = dependenciesOfPending(input.definition, input.pending ?? []);
  if (input.hook.strategy === 'direct_dependencies') {
    const needed = new Set(Object.values(input.definition.tasks).flatMap((task) => task.depends_on));
    keep = (entry) => needed.has(entry.task);
  } else {
    const kept = new Set(
      [...entries]
        .sort(orders[input.hook.strategy])
        .slice(0, input.hook.keep_count ?? 20)
        .map((entry) => entry.taskId),
    );
    keep = (entry) => kept.has(entry.taskId);
  }
  return entries.filter((entry) => !keep(entry) && !stillRead.has(entry.task)).map((entry) => entry.taskId);
}
