// Pure: what the context planner (the `planContext` local activity) is asked for the tasks
// about to run, read from the swarm's state.

import type { ContextLoopOutputs, PlanContextInput } from '../contracts/relevance-pool-contracts.js';
import { isLooped } from '../dsl/task-instances.js';
import type { ScheduledInstance } from './plan-step.js';
import { reusedResult, type SwarmState, taskResults, taskSpec } from './swarm-state.js';

/**
 * What the context planner needs of each loop that has folded instances: its `ok` count and,
 * once it has ended, its manifest (a context shows only a loop's newest pooled outputs and
 * names the rest by the manifest). One entry per loop task, whatever its width.
 *
 * @example
 * ```ts
 * contextLoops(state); // { fan: { ok: 100, manifest: 'out_…' } }
 * ```
 */
export function contextLoops(state: SwarmState): Record<string, ContextLoopOutputs> {
  const loops: Record<string, ContextLoopOutputs> = {};
  for (const task of state.taskNames) {
    if (!isLooped(taskSpec(state, task))) continue;
    const results = taskResults(state, task);
    if (results.done === 0) continue;
    loops[task] = {
      ok: results.ok,
      ...(results.manifest === undefined ? {} : { manifest: results.manifest }),
    };
  }
  return loops;
}

/**
 * Tasks of `instances` that take a context (`inject_context` on, `context.mode` not `none`), in
 * order, each once.
 *
 * @example
 * ```ts
 * contextTasks(state, instances); // ['report']
 * ```
 */
export function contextTasks(state: SwarmState, instances: readonly ScheduledInstance[]): string[] {
  return [...new Set(instances.map((item) => item.task))].filter((task) => {
    const spec = taskSpec(state, task);
    return spec.inject_context !== false && spec.context?.mode !== 'none';
  });
}

/**
 * The `planContext` input for the instances about to run at `now`, or `undefined` when there is
 * nothing to plan: the pool is empty and no loop has folded an instance, or no instance that
 * runs takes a context (a reused instance does not run, so it needs none). A loop reused whole
 * pools only the outputs the run's pool held for it, and a context naming it names its manifest.
 *
 * @example
 * ```ts
 * const request = contextRequest(state, instances, now);
 * const plans = request === undefined ? {} : await port.planContext(request);
 * ```
 */
export function contextRequest(
  state: SwarmState,
  instances: readonly ScheduledInstance[],
  now: number,
): PlanContextInput | undefined {
  const loops = contextLoops(state);
  if (state.pool.entries.length === 0 && Object.keys(loops).length === 0) return undefined;
  const tasks = contextTasks(
    state,
    instances.filter((item) => reusedResult(state, item) === undefined),
  );
  if (tasks.length === 0) return undefined;
  return { definition: state.definition, pool: state.pool, tasks, now, loops };
}
