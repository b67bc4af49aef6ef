import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Runs `work` with a fresh temp directory and always removes it. */
export async function withTempDir<TResult>(work: (directory: string) => Promise<TResult>): Promise<TResult> {
  const directory = await mkdtemp(join(tmpdir(), 'wharf-bench-output-'));
  try {
    return await work(directory);
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

/** The value at quantile `q` (0..1) of ascending-sorted samples. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

/**
 * p50, p99 and rate of latency samples (µs) taken over `seconds`; sorts `samples` in place.
 */
export function summarise(
  samples: number[],
  seconds: number,
): { p50: number; p99: number; opsPerSecond: number } {
  samples.sort((left, right) => left - right);
  return {
    p50: quantile(samples, 0.5),
    p99: quantile(samples, 0.99),
    opsPerSecond: samples.length / seconds,
  };
}

/** Formats microseconds for a report line. */
export function micros(value: number): string {
  return `${value.toFixed(1)} µs`;
}

/** Durability pragmas shared by the store and the raw baselines. */
export const pragmas = ['journal_mode = WAL', 'synchronous = NORMAL'] as const;
