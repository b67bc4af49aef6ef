// Pure: the results a re-run folds instead of running tasks again. Runs inside the workflow
// sandbox. The one place that reads a run's `reuse` input.
import type { ReusedResults, SubagentResult } from '../shared/types.js';

/**
 * The results an earlier run stored, that this run folds as they are (see {@link ReusedResults}).
 * A task is reused only as a whole: when its results cover exactly the instances it has now (a
 * map loop over the same list); otherwise it runs. Each result handed out is marked `reused`.
 *
 * @example
 * ```ts
 * const book = new ReuseBook({ fetch: [okResult] });
 * book.result('fetch', 0, 1); // { ...okResult, reused: true }
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

  /** The result of `task`'s instance `instance`, when the task's results cover its `total` instances. */
  result(task: string, instance: number, total: number): SubagentResult | undefined {
    const results = this.has(task) ? this.#results[task] : undefined;
    if (results === undefined || results.length !== total) return undefined;
    const result = results[instance];
    return result === undefined ? undefined : { ...result, reused: true };
  }

  /** What is left to fold, the tasks `done` says finished left out; `undefined` when nothing is. */
  remaining(done: (task: string) => boolean): ReusedResults | undefined {
    const left = Object.entries(this.#results).filter(([task]) => !done(task));
    return left.length === 0 ? undefined : Object.fromEntries(left);
  }
}
