// Pure: when the outputs a re-run reuses entered the run's context pool. No clock of its own:
// the caller gives the re-run's start.

import type { TaskProgress } from '../contracts/progress-contracts.js';
import { isReusedLoop } from '../contracts/reused-loop.js';
import type { ReusedResults } from '../contracts/swarm-contracts.js';

/**
 * The reused results with `pooledAt`: when each entered the run's context pool (the result's
 * own `pooledAt` when the run reused it in turn, else its task's `endedAt`: a task's instances
 * fold when its last step does; a loop reused whole: the `pooledAt` of each output the run's
 * pool held for it), all shifted by one amount so that the latest is `now`. A re-run's context
 * then ranks the reused outputs as the run's did (the newest first among equally relevant ones,
 * ties by task id) instead of as outputs that all finished at once. Tasks with no end time, and
 * loops reused whole that carry no pooled outputs, are left as they are.
 *
 * @example
 * ```ts
 * const reuse = reusePoolTimes(plan.reuse, run.result.tasks, Date.now());
 * reuse.fetch?.[0]?.pooledAt; // the fetch's end, moved to the re-run's start
 * ```
 */
export function reusePoolTimes(
  reuse: ReusedResults,
  tasks: readonly Pick<TaskProgress, 'task' | 'endedAt'>[],
  now: number,
): ReusedResults {
  const ended = new Map(tasks.map((task) => [task.task, task.endedAt]));
  const origin = (task: string, pooledAt: number | undefined) => pooledAt ?? ended.get(task);
  let latest: number | undefined;
  const seen = (at: number | undefined) => {
    if (at !== undefined && (latest === undefined || at > latest)) latest = at;
  };
  for (const [task, results] of Object.entries(reuse)) {
    if (isReusedLoop(results)) for (const output of results.loop.pooled ?? []) seen(output.pooledAt);
    else for (const result of results) seen(origin(task, result?.pooledAt));
  }
  if (latest === undefined) return reuse;
  const shift = now - latest;
  return Object.fromEntries(
    Object.entries(reuse).map(([task, results]) => {
      if (isReusedLoop(results)) {
        const { pooled } = results.loop;
        if (pooled === undefined) return [task, results];
        const moved = pooled.map((output) => ({ ...output, pooledAt: output.pooledAt + shift }));
        return [task, { loop: { ...results.loop, pooled: moved } }];
      }
      return [
        task,
        results.map((result) => {
          const at = origin(task, result?.pooledAt);
          return at === undefined ? result : { ...result, pooledAt: at + shift };
        }),
      ];
    }),
  );
}
