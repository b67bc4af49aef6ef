import type {
  CheckpointPruneConfig,
  CleanupStrategyConfig,
  TaskOutput,
  WorkflowDefinition,
} from './schemas.js';
import { StdioLimitsError } from './stdio-limits-error.js';
import type { WorkflowState } from './workflow-state.js';

/** Which outputs to keep when pruning. */
export type CleanupStrategy =
  | { type: 'most_recent'; keepCount: number }
  | { type: 'highest_relevance'; keepCount: number }
  | { type: 'lru'; keepCount: number }
  /** Keeps outputs some task depends on: `dependedBy` is not empty, or a task of `workflow` lists it. */
  | { type: 'direct_dependencies'; workflow?: WorkflowDefinition }
  | { type: 'custom'; keep: (output: TaskOutput) => boolean };

/** Result of {@link pruneOutputs} and {@link checkpointAndPrune}. */
export interface PruneResult {
  state: WorkflowState;
  /** Task ids whose outputs were removed, in state order. */
  removed: string[];
}

const byId = (a: TaskOutput, b: TaskOutput) => (a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : 0);
const orders = {
  most_recent: (a: TaskOutput, b: TaskOutput) => b.completedAt - a.completedAt || byId(a, b),
  lru: (a: TaskOutput, b: TaskOutput) =>
    b.lastAccessed - a.lastAccessed || b.completedAt - a.completedAt || byId(a, b),
  highest_relevance: (a: TaskOutput, b: TaskOutput) =>
    b.relevanceScore - a.relevanceScore || b.completedAt - a.completedAt || byId(a, b),
};

/**
 * The runtime form of a configured cleanup strategy.
 *
 * @example
 * ```ts
 * cleanupStrategyFromConfig({ type: 'lru', keep_count: 10 }); // { type: 'lru', keepCount: 10 }
 * ```
 */
export function cleanupStrategyFromConfig(config: CleanupStrategyConfig): CleanupStrategy {
  return config.type === 'direct_dependencies'
    ? { type: config.type }
    : { type: config.type, keepCount: config.keep_count };
}

/**
 * Removes outputs the strategy does not keep, returning a new state stamped with `lastPrunedAt`.
 * `most_recent` keeps the N last completed, `lru` the N last read, `highest_relevance` the N
 * with the highest stored score (ties: most recent, then task id), `direct_dependencies` those
 * some task depends on (`dependedBy` not empty, or named in
 * a `depends_on` of the strategy's workflow), and `custom` those its predicate keeps.
 *
 * @example
 * ```ts
 * const { state: pruned, removed } = pruneOutputs(state, { type: 'most_recent', keepCount: 20 }, Date.now());
 * ```
 */
export function pruneOutputs(
  state: WorkflowState,
  strategy: CleanupStrategy,
  now: number = Date.now(),
): PruneResult {
  const outputs = Object.values(state.taskOutputs);
  let keep: (output: TaskOutput) => boolean;
  if (strategy.type === 'custom') keep = strategy.keep;
  else if (strategy.type === 'direct_dependencies') {
    const needed = new Set(
      Object.values(strategy.workflow?.tasks ?? {}).flatMap((task) => task.depends_on ?? []),
    );
    keep = (output) => output.dependedBy.length > 0 || needed.has(output.taskId);
  } else {
    if (!Number.isInteger(strategy.keepCount) || strategy.keepCount < 0) {
      throw new StdioLimitsError(
        'INVALID_ARGUMENT',
        `keepCount must be a non-negative integer, got ${strategy.keepCount}`,
      );
    }
    const kept = new Set(
      [...outputs]
        .sort(orders[strategy.type])
        .slice(0, strategy.keepCount)
        .map((output) => output.taskId),
    );
    keep = (output) => kept.has(output.taskId);
  }
  const taskOutputs: Record<string, TaskOutput> = {};
  const removed: string[] = [];
  for (const output of outputs) {
    if (keep(output)) taskOutputs[output.taskId] = output;
    else removed.push(output.taskId);
  }
  return { state: { ...state, taskOutputs, lastPrunedAt: now }, removed };
}

/**
 * The `checkpoint_and_prune` hook: call it after each task. Every `every` tasks (counted by
 * `recordTaskOutput`) it prunes with the configured strategy and resets the count.
 *
 * @example
 * ```ts
 * const hook = { every: 10, strategy: 'highest_relevance', keep_count: 20 } as const;
 * ({ state } = checkpointAndPrune(recordTaskOutput(state, output), hook, Date.now()));
 * ```
 */
export function checkpointAndPrune(
  state: WorkflowState,
  hook: CheckpointPruneConfig,
  now: number = Date.now(),
): PruneResult {
  if ((state.tasksSinceCheckpoint ?? 0) < hook.every) return { state, removed: [] };
  const strategy: CleanupStrategy =
    hook.strategy === 'direct_dependencies'
      ? { type: hook.strategy }
      : { type: hook.strategy, keepCount: hook.keep_count ?? 20 };
  const result = pruneOutputs(state, strategy, now);
  return { ...result, state: { ...result.state, tasksSinceCheckpoint: 0 } };
}
