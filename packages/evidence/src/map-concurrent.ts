/**
 * Maps `items` through an async function with at most `limit` calls in flight, keeping the
 * input order in the result (so many small file reads overlap without exhausting handles).
 *
 * @example
 * ```ts
 * const texts = await mapConcurrent(paths, 16, (path) => readFile(path, 'utf8'));
 * ```
 */
export async function mapConcurrent<TInput, TOutput>(
  items: readonly TInput[],
  limit: number,
  work: (item: TInput) => Promise<TOutput>,
): Promise<TOutput[]> {
  const results = new Array<TOutput>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as TInput);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane));
  return results;
}
