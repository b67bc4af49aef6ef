import { join } from 'node:path';
import { FsArtifactStore } from '@wharf/evidence';
import type { BenchRow } from '../harness.js';

/** What {@link putWorkerRow} measured: the mean time of a put early and late in one run. */
export interface PutWorkerFigures {
  workers: number;
  window: number;
  firstMs: number;
  lastMs: number;
}

/**
 * Stores `workers` new workers in one run of a fresh `FsArtifactStore` (as a wide map's
 * instances do) and compares the mean time of a put among the last `window` with the first:
 * storing a worker checks only its job's claim, so the cost of a put must not grow with the
 * workers already in the run (it read every sibling's metadata once, 0.11 at 3,000 workers).
 *
 * @example
 * ```ts
 * const { row, figures } = await putWorkerRow(join(root, 'put-worker'), 10_000, 1_000);
 * ```
 */
export async function putWorkerRow(
  root: string,
  workers: number,
  window: number,
): Promise<{ row: BenchRow; figures: PutWorkerFigures }> {
  const store = new FsArtifactStore({ root: join(root, 'store') });
  const times: number[] = [];
  for (let index = 0; index < workers; index++) {
    const started = performance.now();
    await store.putWorker({
      workerId: `worker-${index}`,
      jobId: `fan.${index}`,
      runId: 'wide',
      ownerId: 'bench',
      status: 'running',
      startedAt: '2026-11-27T00:00:00.000Z',
    });
    times.push(performance.now() - started);
  }
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  const firstMs = mean(times.slice(0, window));
  const lastMs = mean(times.slice(-window));
  return {
    row: {
      name: `putWorker: last ${window} vs first ${window} of ${workers} workers in a run (1.00 = flat)`,
      ours: 1000 / lastMs,
      baseline: 1000 / firstMs,
      target: 0.5,
    },
    figures: { workers, window, firstMs, lastMs },
  };
}
