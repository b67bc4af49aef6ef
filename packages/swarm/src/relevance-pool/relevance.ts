import type { ContextPoolEntry } from '../contracts/relevance-pool-contracts.js';
import type { SwarmDefinition } from '../contracts/swarm-schema.js';

/**
 * How long after finishing an output still counts as recent (5 minutes).
 *
 * @example
 * ```ts
 * now - entry.completedAt <= RECENT_WINDOW_MS; // scores 0.3 when nothing closer applies
 * ```
 */
export const RECENT_WINDOW_MS = 300_000;

/** The parts of a swarm definition relevance reads. */
export type RelevanceDefinition = {
  tasks: Readonly<Record<string, Pick<SwarmDefinition['tasks'][string], 'depends_on' | 'agent'>>>;
};

/**
 * Shortest dependency distance from `task` to each task it depends on, directly (1) or
 * transitively (2, 3, …), following `depends_on`. A loop instance is at its task's distance.
 *
 * @example
 * ```ts
 * dependencyDepths(definition, 'report'); // Map { 'clean' => 1, 'fetch' => 2 }
 * ```
 */
export function dependencyDepths(definition: RelevanceDefinition, task: string): Map<string, number> {
  const depths = new Map<string, number>();
  let frontier = [task];
  for (let depth = 1; frontier.length > 0; depth++) {
    const next: string[] = [];
    for (const name of frontier) {
      for (const dependency of definition.tasks[name]?.depends_on ?? []) {
        if (dependency === task || depths.has(dependency)) continue;
        depths.set(dependency, depth);
        next.push(dependency);
      }
    }
    frontier = next;
  }
  return depths;
}

/**
 * Scores pooled outputs for one task about to run (walking its dependencies once): an output
 * of a direct dependency scores 1.0, of a transitive one 0.8 divided by its distance, of a
 * task with the same agent 0.5, one finished in the last 5 minutes 0.3, anything else 0. The
 * first rule that applies wins; a loop instance scores as its task.
 *
 * @example
 * ```ts
 * const score = relevanceScorer({ definition, pool: pool.entries, task: 'report', now });
 * score(fetchEntry); // 0.4
 * ```
 */
export function relevanceScorer(options: {
  definition: RelevanceDefinition;
  pool: readonly ContextPoolEntry[];
  /** The task the context is for. */
  task: string;
  /** Workflow time (epoch ms). */
  now: number;
}): (entry: ContextPoolEntry) => number {
  const depths = dependencyDepths(options.definition, options.task);
  const currentAgent =
    options.definition.tasks[options.task]?.agent ??
    options.pool.find((entry) => entry.taskId === options.task)?.agent;
  return (entry) => {
    const depth = depths.get(entry.task);
    if (depth === 1) return 1;
    if (depth !== undefined) return 0.8 / depth;
    const agent = options.definition.tasks[entry.task]?.agent ?? entry.agent;
    if (currentAgent !== undefined && agent === currentAgent) return 0.5;
    if (options.now - entry.completedAt <= RECENT_WINDOW_MS) return 0.3;
    return 0;
  };
}
