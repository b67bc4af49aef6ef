/** Best rates of ours and the baseline, from {@link measurePair}. */
export interface PairMeasurement {
  ours: number;
  baseline: number;
}

/**
 * Measures our work and the baseline's in alternating rounds (after one warm-up each) and
 * keeps each side's best round: on a shared machine, load that comes and goes then hits
 * both sides alike instead of whichever happened to run during it.
 *
 * @example
 * ```ts
 * const { ours, baseline } = await measurePair(1_000, { ours: runOurs, baseline: runTheirs, rounds: 7 });
 * ```
 */
export async function measurePair(
  operations: number,
  options: { ours: () => unknown; baseline: () => unknown; rounds: number },
): Promise<PairMeasurement> {
  await options.ours();
  await options.baseline();
  let ours = Number.POSITIVE_INFINITY;
  let baseline = Number.POSITIVE_INFINITY;
  for (let round = 0; round < options.rounds; round++) {
    ours = Math.min(ours, await timed(options.ours));
    baseline = Math.min(baseline, await timed(options.baseline));
  }
  return { ours: operations / ours, baseline: operations / baseline };
}

async function timed(work: () => unknown): Promise<number> {
  const start = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - start) / 1e9;
}
