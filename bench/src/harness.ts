/**
 * One measured row of a benchmark table: our rate against a baseline measured in the same run
 * (ratio ours / baseline, at least `target`), or a figure that is printed for information only
 * (`target: 'info'`, with the reason in `note`).
 */
export interface RateRow {
  /** What was measured. */
  name: string;
  /** Operations per second of Wharf's implementation. */
  ours: number;
  /** Operations per second of the baseline measured in the same run. */
  baseline: number;
  /** Ratio ours / baseline required to pass, or `'info'` for a row that is not judged. */
  target: number | 'info';
}

/** A row judged against a fixed budget: the measured figure must stay at or under it. */
export interface BudgetRow {
  name: string;
  /** The measured figure (a size, a latency, …), in `unit`. */
  measured: number;
  /** The most it may be, in `unit`. */
  budget: number;
  unit: string;
}

/** One row of a benchmark table. */
export type BenchRow = RateRow | BudgetRow;

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

/**
 * Formats rows as one aligned text table: every row shows its figures, its ratio, its target and
 * its verdict (`ok`, `MISS`, or `info` for rows printed for information only). A budget row's
 * ratio is budget / measured, so it passes at 1 or more like the others; one that measured 0
 * prints no ratio and passes (a budget of 0 items lost is met by 0).
 */
export function formatTable(title: string, rows: readonly BenchRow[]): string {
  const header = ['benchmark', 'ours', 'baseline / budget', 'ratio', 'target', 'verdict'];
  const body = rows.map((row) => {
    if ('budget' in row) {
      // A count that must stay at 0 (items lost) has no ratio: it is judged on the figure alone.
      const ratio = row.measured === 0 ? '-' : (row.budget / row.measured).toFixed(2);
      return [
        row.name,
        `${formatFigure(row.measured)} ${row.unit}`,
        `<= ${formatFigure(row.budget)} ${row.unit}`,
        ratio,
        '>= 1',
        row.measured <= row.budget ? 'ok' : 'MISS',
      ];
    }
    const ratio = row.ours / row.baseline;
    const target = row.target;
    return [
      row.name,
      formatRate(row.ours),
      formatRate(row.baseline),
      ratio.toFixed(2),
      target === 'info' ? 'info' : `>= ${target}`,
      target === 'info' ? 'info' : ratio >= target ? 'ok' : 'MISS',
    ];
  });
  const widths = header.map((cell, column) =>
    Math.max(cell.length, ...body.map((line) => line[column]?.length ?? 0)),
  );
  const render = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd();
  return [
    `## ${title}`,
    render(header),
    render(widths.map((width) => '-'.repeat(width))),
    ...body.map(render),
  ].join('\n');
}

/** A figure with at most three significant decimals: 0.0123 → "0.0123", 1536.2 → "1536.2". */
function formatFigure(value: number): string {
  if (value >= 100) return value.toFixed(1).replace(/\.0$/, '');
  return Number(value.toPrecision(3)).toString();
}

/** Human-readable rate: 1234567 → "1.23M". */
export function formatRate(value: number): string {
  if (value >= 1e6) return `${(value / 1e6).toFixed(2)}M`;
  if (value >= 1e3) return `${(value / 1e3).toFixed(1)}k`;
  return value.toFixed(1);
}
