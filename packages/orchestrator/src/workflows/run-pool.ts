// Pure: runs async jobs with at most `limit` in flight, results in input order.

/**
 * Runs `job` over `items` with at most `limit` running at once and returns the results in
 * `items` order (never completion order). Deterministic under Temporal replay: the order in
 * which jobs start depends only on the order in which earlier jobs finished, which history
 * records.
 *
 * @example
 * ```ts
 * const results = await runPool(instances, 200, (instance) => runSubagent(instance));
 * ```
 */
export async function runPool<TItem, TResult>(
  items: readonly TItem[],
  limit: number,
  job: (item: TItem, index: number) => Promise<TResult>,
): Promise<TResult[]> {
  const results = new Array<TResult>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await job(items[index] as TItem, index);
    }
  };
  const workers = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker);
  await Promise.all(workers);
  return results;
}
