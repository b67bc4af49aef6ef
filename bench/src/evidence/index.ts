import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EvidenceCompiler, FsArtifactStore } from '@wharf/evidence';
import type { Benchmark } from '../benchmark.js';
import { formatTable, type Measurement, measure } from '../harness.js';
import { createRun, type RunShape } from './fixture.js';
import { measureInterleaved } from './interleaved.js';
import { naiveCompile } from './naive-compile.js';
import { putWorkerRow } from './put-worker.js';
import { scaleRows, scaleShape } from './scale.js';

const BUDGET = 32_000;
const KB = 1024;
const MB = 1024 * 1024;

function formatSize(bytes: number): string {
  const [value, unit] =
    bytes >= 1024 * MB ? [bytes / (1024 * MB), 'GB'] : bytes >= MB ? [bytes / MB, 'MB'] : [bytes / KB, 'KB'];
  return `${Number.isInteger(value) ? value : value.toFixed(1)} ${unit}`;
}

/**
 * Compile time of a 32 KB evidence budget over a run whose outputs are small or huge: the
 * compiler reads only the byte ranges it emits, so the two should cost about the same. The
 * scale rows compile 1,000 workers × 20 calls under the same budget (see {@link scaleRows}); the
 * last row stores 10,000 workers in one run and compares a late put with an early one.
 */
export const evidenceBenchmark: Benchmark = {
  name: 'evidence',
  async run({ smoke }) {
    const workers = smoke ? 5 : 50;
    const callsPerWorker = smoke ? 4 : 20;
    const small: RunShape = {
      runId: 'small',
      workers,
      callsPerWorker,
      artifactBytes: smoke ? 4 * KB : 10 * KB,
    };
    const large: RunShape = {
      runId: 'large',
      workers,
      callsPerWorker,
      artifactBytes: smoke ? 4 * MB : 100 * MB,
    };
    const medium: RunShape = { runId: 'medium', workers, callsPerWorker, artifactBytes: smoke ? MB : 4 * MB };
    const root = await mkdtemp(join(tmpdir(), 'wharf-bench-evidence-'));
    try {
      const scratch = join(root, 'scratch');
      // Sparse outputs are written in scratch and handed over to the store from there.
      const store = new FsArtifactStore({ root: join(root, 'store'), spoolDirectories: [scratch] });
      await mkdir(scratch, { recursive: true });
      await createRun(store, small, scratch);
      await createRun(store, large, scratch);
      await createRun(store, medium, scratch);
      const compiler = new EvidenceCompiler({ store });
      const rounds = smoke ? 3 : 7;

      const reports = new Map<string, { bytesRead: number; bytesEmitted: number; storeRead: number }>();
      const compile = (runId: string) => async () => {
        const before = store.bytesRead;
        const report = await compiler.compileWithReport({ runId, ownerId: 'bench', budgetBytes: BUDGET });
        reports.set(runId, {
          bytesRead: report.bytesRead,
          bytesEmitted: report.bytesEmitted,
          storeRead: store.bytesRead - before,
        });
      };
      const interleaved = await measureInterleaved([compile('small'), compile('large')], rounds);
      const smallTime = interleaved[0] as Measurement;
      const largeTime = interleaved[1] as Measurement;
      const mediumTime = await measure(1, compile('medium'), rounds);
      const naiveTime = await measure(1, () => naiveCompile(store, 'medium', BUDGET), smoke ? 1 : 2);

      const scale = await scaleRows(store, scaleShape(smoke, BUDGET), scratch);
      const puts = await putWorkerRow(join(root, 'put-worker'), smoke ? 1_500 : 10_000, smoke ? 300 : 1_000);

      const table = formatTable('evidence: compile at a 32 KB budget (compiles/s)', [
        {
          name: `${formatSize(large.artifactBytes)} outputs vs ${formatSize(small.artifactBytes)} outputs`,
          ours: largeTime.opsPerSecond,
          baseline: smallTime.opsPerSecond,
          target: 0.5,
        },
        {
          name: `compiler vs read-whole-then-cut, ${formatSize(medium.artifactBytes)} outputs`,
          ours: mediumTime.opsPerSecond,
          baseline: naiveTime.opsPerSecond,
          target: 1,
        },
        ...scale.rows,
        puts.row,
      ]);
      const calls = workers * callsPerWorker;
      const lines = [
        `run: ${workers} workers x ${callsPerWorker} tool calls = ${calls} outputs per run; budget ${BUDGET} B`,
        ...[small, large].map((shape) => {
          const report = reports.get(shape.runId);
          const seconds = shape === small ? smallTime.seconds : largeTime.seconds;
          return (
            `${formatSize(shape.artifactBytes).padStart(6)} outputs (${formatSize(shape.artifactBytes * calls)} stored): ` +
            `compile ${(seconds * 1000).toFixed(1)} ms, bytes read ${report?.bytesRead ?? 0} ` +
            `(store counted ${report?.storeRead ?? 0}), bytes emitted ${report?.bytesEmitted ?? 0}`
          );
        }),
        `time ratio large/small: ${(largeTime.seconds / smallTime.seconds).toFixed(2)} (the first row's 0.5 target)`,
        `at ${formatSize(medium.artifactBytes)} outputs: compile ${(mediumTime.seconds * 1000).toFixed(1)} ms, ` +
          `read-whole-then-cut ${(naiveTime.seconds * 1000).toFixed(1)} ms ` +
          `(it would read ${formatSize(large.artifactBytes * calls)} per compile at ${formatSize(large.artifactBytes)})`,
        ...scale.lines,
        `putWorker in a run of ${puts.figures.workers}: ${puts.figures.firstMs.toFixed(2)} ms a put among the first ` +
          `${puts.figures.window}, ${puts.figures.lastMs.toFixed(2)} ms among the last`,
      ];
      return `${table}\n${lines.join('\n')}`;
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  },
};
