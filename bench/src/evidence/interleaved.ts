import type { Measurement } from '../harness.js';

/**
 * Best-of-`rounds` time of each workload, alternating them round by round so that load from
 * other processes on the machine falls on both alike. Each runs once untimed first.
 *
 * @example
 * ```ts
 * const [ours, baseline] = await measureInterleaved([compileLarge, compileSmall], 7);
 * ```
 */
export async function measureInterleaved(
  works: ReadonlyArray<() => Promise<unknown>>,
  rounds: number,
): Promise<Measurement[]> {
  const best = works.map(() => Number.POSITIVE_INFINITY);
  for (const work of works) await work();
  for (let round = 0; round < rounds; round++) {
    for (const [index, work] of works.entries()) {
      const start = process.hrtime.bigint();
      await work();
      best[index] = Math.min(best[index] ?? 0, Number(process.hrtime.bigint() - start) / 1e9);
    }
  }
  return best.map((seconds) => ({ operations: 1, seconds, opsPerSecond: 1 / seconds }));
}
