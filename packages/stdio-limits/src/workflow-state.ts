import type { ResolvedLimits } from './limits.js';
import type { ContextConfig, TaskOutput } from './schemas.js';

/** The context-related part of a workflow's state: task outputs plus pruning bookkeeping. */
export interface WorkflowState {
  /** Outputs by task id; insertion order is kept. */
  taskOutputs: Readonly<Record<string, TaskOutput>>;
  /** Epoch milliseconds of the last prune, if any. */
  lastPrunedAt?: number;
  /** Tasks recorded since the last checkpoint prune. */
  tasksSinceCheckpoint?: number;
}

/**
 * Context limits taken from resolved `limits`.
 *
 * @example
 * ```ts
 * contextConfigFromLimits(resolveLimits()); // { maxBytes: 102400, maxTasks: 10, relevanceThreshold: 0.3, … }
 * ```
 */
export function contextConfigFromLimits(limits: ResolvedLimits): ContextConfig {
  return {
    maxBytes: limits.max_context_bytes,
    maxTasks: limits.max_context_tasks,
    relevanceThreshold: limits.relevance_threshold,
    cleanupStrategy: limits.cleanup_strategy,
    ...(limits.time_window_secs === undefined ? {} : { timeWindowSecs: limits.time_window_secs }),
    ...(limits.context_masking === undefined ? {} : { maskKeepRecent: limits.context_masking.keep_recent }),
  };
}

/**
 * Adds (or replaces) a task output, returning a new state; counts it toward checkpoint pruning.
 *
 * @example
 * ```ts
 * let state: WorkflowState = { taskOutputs: {} };
 * state = recordTaskOutput(state, output);
 * ```
 */
export function recordTaskOutput(state: WorkflowState, output: TaskOutput): WorkflowState {
  return {
    ...state,
    taskOutputs: { ...state.taskOutputs, [output.taskId]: output },
    tasksSinceCheckpoint: (state.tasksSinceCheckpoint ?? 0) + 1,
  };
}

/**
 * Marks outputs as read at `now` (for LRU pruning), returning a new state.
 *
 * @example
 * ```ts
 * const context = buildSmartContext({ currentTaskId: 'report', workflow, state, now });
 * state = markAccessed(state, context.tasks.map((task) => task.taskId), now);
 * ```
 */
export function markAccessed(state: WorkflowState, taskIds: readonly string[], now: number): WorkflowState {
  const taskOutputs = { ...state.taskOutputs };
  for (const taskId of taskIds) {
    const output = taskOutputs[taskId];
    if (output) taskOutputs[taskId] = { ...output, lastAccessed: now };
  }
  return { ...state, taskOutputs };
}
