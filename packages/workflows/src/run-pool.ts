// Pure: runs async jobs with at most `limit` in flight, results in input order.

/** Options of {@link runPool}. */
export interface RunPoolOptions {
  /**
   * Asked before each item after the first starts: once it returns true no further item
   * starts, the items in flight finish, and the results hold only the items started (a prefix
   * of `items`, since items start in order). Deterministic in a workflow when it reads only
   * `workflowInfo()` (history length and size are recorded per workflow task).
   */
  shouldStop?: () => boolean;
}

/**
 * Runs `job` over `items` with at most `limit` running at once and returns the results in
 * `items` order (never completion order). Deterministic under Temporal replay: the order in
 * which jobs start depends only on the order in which earlier jobs finished, which history
 * records. With `shouldStop`, the result may be shorter than `items`: it holds the results of
 * the first `results.length` items, the only ones started.
 *
 * @example
 * ```ts
 * const results = await runPool(instances, 200, (instance) => runSubagent(instance), {
 *   shouldStop: () => workflowInfo().continueAsNewSuggested,
 * });
 * const rest = instances.slice(results.length); // to run after continue-as-new
 * ```
 */
export async function runPool<TItem, TResult>(
  items: readonly TItem[],
  limit: number,
  job: (item: TItem, index: number) => Promise<TResult>,
  options: RunPoolOptions = {},
): Promise<TResult[]> {
  const results = new Array<TResult>(items.length);
  let next = 0;
  let stopped = false;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      if (!stopped && next > 0 && options.shouldStop?.() === true) stopped = true;
      if (stopped) return;
      const index = next++;
      results[index] = await job(items[index] as TItem, index);
    }
  };
  const workers = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker);
  await Promise.all(workers);
  results.length = next;
  return results;
}
