import type { WorkflowDefinition } from './schemas.js';
import type { WorkflowState } from './workflow-state.js';

/**
 * How long after completing a task still counts as recent (5 minutes).
 *
 * @example
 * ```ts
 * calculateRelevance({ currentTaskId, outputTaskId, workflow, state, recentWindowMs: RECENT_WINDOW_MS / 5 });
 * ```
 */
export const RECENT_WINDOW_MS = 300_000;

/** Options of {@link calculateRelevance}. */
export interface RelevanceOptions {
  /** The task the context is for. */
  currentTaskId: string;
  /** The task whose output is scored. */
  outputTaskId: string;
  workflow: WorkflowDefinition;
  state: WorkflowState;
  /** Current time in epoch milliseconds (inject it; defaults to `Date.now()`). */
  now?: number;
  recentWindowMs?: number;
}

/**
 * Shortest dependency distance from `taskId` to each task it depends on, directly (1) or
 * transitively (2, 3, …), following `depends_on`.
 *
 * @example
 * ```ts
 * dependencyDepths(workflow, 'report'); // Map { 'process' => 1, 'fetch' => 2 }
 * ```
 */
export function dependencyDepths(workflow: WorkflowDefinition, taskId: string): Map<string, number> {
  const depths = new Map<string, number>();
  let frontier = [taskId];
  for (let depth = 1; frontier.length > 0; depth++) {
    const next: string[] = [];
    for (const id of frontier) {
      for (const dependency of workflow.tasks?.[id]?.depends_on ?? []) {
        if (dependency === taskId || depths.has(dependency)) continue;
        depths.set(dependency, depth);
        next.push(dependency);
      }
    }
    frontier = next;
  }
  return depths;
}

/**
 * A scoring function for one current task: computes the dependency walk once, then scores any
 * number of outputs in O(1) each.
 *
 * @example
 * ```ts
 * const score = relevanceScorer({ currentTaskId: 'report', workflow, state, now });
 * score('fetch'); // 0.4
 * ```
 */
export function relevanceScorer(
  options: Omit<RelevanceOptions, 'outputTaskId'>,
): (outputTaskId: string) => number {
  const depths = dependencyDepths(options.workflow, options.currentTaskId);
  const now = options.now ?? Date.now();
  const window = options.recentWindowMs ?? RECENT_WINDOW_MS;
  const agentOf = (taskId: string) =>
    options.workflow.tasks?.[taskId]?.agent ?? options.state.taskOutputs[taskId]?.agent;
  const currentAgent = agentOf(options.currentTaskId);
  return (outputTaskId) => {
    const depth = depths.get(outputTaskId);
    if (depth === 1) return 1;
    if (depth !== undefined) return 0.8 / depth;
    if (currentAgent !== undefined && agentOf(outputTaskId) === currentAgent) return 0.5;
    const completedAt = options.state.taskOutputs[outputTaskId]?.completedAt;
    if (completedAt !== undefined && now - completedAt <= window) return 0.3;
    return 0;
  };
}

/**
 * Relevance (0–1) of one task's output to the current task: a direct dependency scores 1.0, a
 * transitive one 0.8 divided by its distance (2 for a dependency of a dependency), the same
 * agent 0.5, an output completed in the last 5 minutes 0.3, anything else 0. The first rule that
 * applies wins.
 *
 * @example
 * ```ts
 * calculateRelevance({ currentTaskId: 'process', outputTaskId: 'fetch', workflow, state }); // 1
 * ```
 */
export function calculateRelevance(options: RelevanceOptions): number {
  return relevanceScorer(options)(options.outputTaskId);
}
