/** One measured row of a benchmark table. */
export interface BenchRow {
  /** What was measured. */
  name: string;
  /** Operations per second of Wharf's implementation. */
  ours: number;
  /** Operations per second of the baseline measured in the same run. */
  baseline: number;
  /** Ratio ours / baseline required to pass. */
  target: number;
}

/** Result of {@link measure}. */
export interface Measurement {
  operations: number;
  seconds: number;
  opsPerSecond: number;
}

/**
 * Runs `work` once for warm-up, then `rounds` times, and reports the best round
 * (the least disturbed by the other core's load).
 *
 * @example
 * ```ts
 * const m = await measure(100_000, () => { for (let i = 0; i < 100_000; i++) channel.update(i); });
 * ```
 */
export async function measure(
  operations: number,
  work: () => unknown | Promise<unknown>,
  rounds = 3,
): Promise<Measurement> {
  await work();
  let best = Number.POSITIVE_INFINITY;
  for (let round = 0; round < rounds; round++) {
    const start = process.hrtime.bigint();
    await work();
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    best = Math.min(best, seconds);
  }
  return { operations, seconds: best, opsPerSecond: operations / best };
}

/** Formats rows as an aligned text table with the ratio and a pass/miss verdict. */
export function formatTable(title: string, rows: readonly BenchRow[]): string {
  const header = ['benchmark', 'ours ops/s', 'baseline ops/s', 'ratio', 'target', 'verdict'];
  const body = rows.map((row) => {
    const ratio = row.ours / row.baseline;
    return [
      row.name,
      formatRate(row.ours),
      formatRate(row.baseline),
      ratio.toFixed(2),
      `>= ${row.target}`,
      ratio >= row.target ? 'ok' : 'MISS',
    ];
  });
  const widths = header.map((cell, column) =>
    Math.max(cell.length, ...body.map((line) => line[column]?.length ?? 0)),
  );
  const render = (cells: string[]) =>
    cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ');
  return [
    `## ${title}`,
    render(header),
    render(widths.map((width) => '-'.repeat(width))),
    ...body.map(render),
  ].join('\n');
}

/** Human-readable rate: 1234567 → "1.23M". */
export function formatRate(value: number): string {
  if (value >= 1e6) return `${(value / 1e6).toFixed(2)}M`;
  if (value >= 1e3) return `${(value / 1e3).toFixed(1)}k`;
  return value.toFixed(1);
}
