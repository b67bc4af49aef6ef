import { EvidenceCompiler, type FsArtifactStore } from '@wharf/evidence';
import type { BenchRow } from '../harness.js';
import { createRun, createRunByCopying, type RunShape } from './fixture.js';
import { measureInterleaved } from './interleaved.js';
import { naiveCompile } from './naive-compile.js';

const KB = 1024;
const MB = 1024 * 1024;

/** Sizes of the scale rows: a many-worker run and the same calls per worker over few workers. */
export interface ScaleShape {
  /** Workers of the large run (1,000 in full runs). */
  workers: number;
  /** Workers of the reference run (10 in full runs). */
  referenceWorkers: number;
  callsPerWorker: number;
  artifactBytes: number;
  budgetBytes: number;
  rounds: number;
}

/** Full and smoke sizes of {@link scaleRows}. */
export function scaleShape(smoke: boolean, budgetBytes: number): ScaleShape {
  return smoke
    ? {
        workers: 100,
        referenceWorkers: 10,
        callsPerWorker: 20,
        artifactBytes: 4 * KB,
        budgetBytes,
        rounds: 2,
      }
    : {
        workers: 1000,
        referenceWorkers: 10,
        callsPerWorker: 20,
        artifactBytes: 4 * KB,
        budgetBytes,
        rounds: 3,
      };
}

/** Wall time of one run of `work` and the peak growth of the resident set meanwhile (sampled every ms). */
async function timeWithRss(work: () => Promise<unknown>): Promise<{ seconds: number; rssGrowth: number }> {
  const before = process.memoryUsage.rss();
  const start = process.hrtime.bigint();
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 1);
  try {
    await work();
  } finally {
    clearInterval(sampler);
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  return { seconds, rssGrowth: Math.max(peak, process.memoryUsage.rss()) - before };
}

/**
 * Evidence compile at scale: `workers` workers × `callsPerWorker` tool calls under one
 * budget, built once in `store`. The budget is fixed, so the bytes read stay flat however many
 * workers there are, and only the metadata walk (list workers, list each worker's calls,
 * share the budget) grows with the run. The row compares workers compiled per second at
 * `workers` with the same compile over `referenceWorkers` workers, timed round by round in
 * the same run: 1.00 is linear scaling, and the 0.5 target catches anything worse than
 * linear (a quadratic step costs 100× per worker at 100× the workers). A second row prices
 * the compiler against reading every output whole and cutting it, on the large run.
 */
export async function scaleRows(
  store: FsArtifactStore,
  shape: ScaleShape,
  scratch: string,
): Promise<{ rows: BenchRow[]; lines: string[] }> {
  const large: RunShape = {
    runId: 'scale-large',
    workers: shape.workers,
    callsPerWorker: shape.callsPerWorker,
    artifactBytes: shape.artifactBytes,
  };
  const reference: RunShape = { ...large, runId: 'scale-reference', workers: shape.referenceWorkers };
  const buildStart = performance.now();
  await createRunByCopying(store, large, scratch);
  const buildSeconds = (performance.now() - buildStart) / 1000;
  await createRun(store, reference, scratch);

  const compiler = new EvidenceCompiler({ store });
  const reports = new Map<
    string,
    {
      bytesRead: number;
      storeRead: number;
      emitted: number;
      shown: number;
      workersShown: number;
      rollup: boolean;
    }
  >();
  const compile = (runId: string) => async () => {
    const before = store.bytesRead;
    const report = await compiler.compileWithReport({
      runId,
      ownerId: 'bench',
      budgetBytes: shape.budgetBytes,
    });
    reports.set(runId, {
      bytesRead: report.bytesRead,
      storeRead: store.bytesRead - before,
      emitted: report.bytesEmitted,
      shown: report.outputsShown,
      workersShown: [...report.evidence.values()].filter((text) => text.startsWith('--- Evidence')).length,
      rollup: report.rollup !== undefined,
    });
  };
  const [largeTime, referenceTime] = await measureInterleaved(
    [compile(large.runId), compile(reference.runId)],
    shape.rounds,
  );
  if (!largeTime || !referenceTime) throw new Error('scale: missing measurement');
  const { rssGrowth } = await timeWithRss(compile(large.runId));
  // One round: it reads every output whole, and the compiler's rounds warmed the page cache.
  const naive = await timeWithRss(() => naiveCompile(store, large.runId, shape.budgetBytes));

  const calls = shape.workers * shape.callsPerWorker;
  const label = `${shape.workers} vs ${shape.referenceWorkers} workers x ${shape.callsPerWorker} calls`;
  const rows: BenchRow[] = [
    {
      name: `scale ${label}, workers compiled/s (1.00 = linear)`,
      ours: shape.workers / largeTime.seconds,
      baseline: shape.referenceWorkers / referenceTime.seconds,
      target: 0.5,
    },
    {
      name: `compiler vs read-whole-then-cut, ${shape.workers} workers x ${shape.callsPerWorker} calls`,
      ours: largeTime.opsPerSecond,
      baseline: 1 / naive.seconds,
      target: 1,
    },
  ];
  const describe = (run: RunShape, seconds: number) => {
    const report = reports.get(run.runId);
    return (
      `scale ${run.workers} x ${run.callsPerWorker} (${run.workers * run.callsPerWorker} outputs): ` +
      `compile ${(seconds * 1000).toFixed(1)} ms, ${((seconds * 1e6) / run.workers).toFixed(0)} us per worker, ` +
      `bytes read ${report?.bytesRead ?? 0} (store counted ${report?.storeRead ?? 0}), ` +
      `emitted ${report?.emitted ?? 0}, outputs shown ${report?.shown ?? 0}, ` +
      `workers shown ${report?.workersShown ?? 0}${report?.rollup ? ' + roll-up line' : ''}`
    );
  };
  const lines = [
    `scale run: ${calls} outputs of ${shape.artifactBytes / KB} KB ` +
      `(${((calls * shape.artifactBytes) / MB).toFixed(0)} MB stored), budget ${shape.budgetBytes} B ` +
      `= ${Math.floor(shape.budgetBytes / shape.workers)} B per worker; fixture built once in ${buildSeconds.toFixed(1)} s`,
    describe(large, largeTime.seconds),
    describe(reference, referenceTime.seconds),
    `peak RSS growth during one ${shape.workers}-worker compile: ${(rssGrowth / MB).toFixed(1)} MB ` +
      `(read-whole-then-cut: ${(naive.rssGrowth / MB).toFixed(1)} MB, ${(naive.seconds * 1000).toFixed(0)} ms, ` +
      `reads ${((calls * shape.artifactBytes) / MB).toFixed(0)} MB)`,
  ];
  return { rows, lines };
}
