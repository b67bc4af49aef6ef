// Pure: the results a re-run folds instead of running tasks again. Runs inside the workflow
// sandbox. The one place that reads a run's `reuse` input.

import type { SubagentResult } from '../contracts/agent-contracts.js';
import { isReusedLoop } from '../contracts/reused-loop.js';
import type { ReusedLoop, ReusedResults } from '../contracts/swarm-contracts.js';

/**
 * The results an earlier run stored, that this run folds as they are (see {@link ReusedResults}).
 * A task is reused only as a whole: when its results cover exactly the instances it has now (a
 * map loop over the same list); otherwise it runs. A task reused as a whole runs nothing, so its
 * `approval:` gate does not hold it. Each result handed out is marked `reused`; a wide loop is
 * handed out whole ({@link ReuseBook.loop}), never instance by instance.
 *
 * @example
 * ```ts
 * const book = new ReuseBook({ fetch: [okResult], fan: { loop: { total: 500, manifest: 'out_m', bytes: 0, outCount: 500, outIds: [] } } });
 * book.result('fetch', 0, 1); // { ...okResult, reused: true }
 * book.loop('fan', 500); // { total: 500, manifest: 'out_m', … }
 * book.result('report', 0, 1); // undefined: it runs
 * ```
 */
export class ReuseBook {
  readonly #results: ReusedResults;

  constructor(results: ReusedResults = {}) {
    this.#results = results;
  }

  /** True when the run reuses anything of `task`. */
  has(task: string): boolean {
    return Object.hasOwn(this.#results, task);
  }

  /** True when the task's results cover exactly `total` instances: it runs none of them. */
  covers(task: string, total: number): boolean {
    const reused = this.#results[task];
    if (reused === undefined) return false;
    return isReusedLoop(reused) ? reused.loop.total === total : reused.length === total;
  }

  /** The result of `task`'s instance `instance`, when the task's results cover its `total` instances one by one. */
  result(task: string, instance: number, total: number): SubagentResult | undefined {
    const reused = this.#results[task];
    if (reused === undefined || isReusedLoop(reused) || !this.covers(task, total)) return undefined;
    const result = reused[instance];
    return result === undefined ? undefined : { ...result, reused: true };
  }

  /** The loop `task` reused whole, when it covers its `total` instances. */
  loop(task: string, total: number): ReusedLoop['loop'] | undefined {
    const reused = this.#results[task];
    return isReusedLoop(reused) && this.covers(task, total) ? reused.loop : undefined;
  }

  /** What is left to fold, the tasks `done` says finished left out; `undefined` when nothing is. */
  remaining(done: (task: string) => boolean): ReusedResults | undefined {
    const left = Object.entries(this.#results).filter(([task]) => !done(task));
    return left.length === 0 ? undefined : Object.fromEntries(left);
  }
}
