import { defineConfig } from 'vitest/config';
import { ClosingLineReporter } from './test/src/closing-line-reporter.js';

// One config, four tiers chosen by file suffix:
//   *.test.ts         unit: pure, fast, no servers
//   *.int.test.ts     integration: real SQLite files, real child processes, real Temporal
//   *.e2e.test.ts     end to end: black box through worker, client and CLI (test/)
//   *.faults.test.ts  the native cluster tier (test/): its journeys (up, status, processes
//                     stopped and started, a rolling upgrade) and infrastructure faults survived
// The int and e2e tiers share one Temporal dev server per run (test/src/global-setup.ts).
const exclude = ['**/node_modules/**', '**/dist/**'];

export default defineConfig({
  test: {
    // The default report, then one plain closing line (`N passed, N failed, N skipped`).
    reporters: ['default', new ClosingLineReporter()],
    // Three test files at a time on two cores (vitest's default there is one): the int and e2e
    // files spend much of their time waiting on Temporal, child processes and servers, so with
    // two the cores sat idle a fifth of the time. Whole suite: 455 s with two, 393 s with three.
    maxWorkers: 3,
    projects: [
      {
        test: {
          name: 'unit',
          // The files of a worker share one module graph instead of importing it again per file
          // (the unit tier in 43 s instead of 72; int + e2e in 356 s instead of about 420). A
          // process-wide setting is read where it is used (the stream reader's), never cached
          // once per process, and a file that changes one sets it back.
          isolate: false,
          include: [
            'packages/*/src/**/*.test.ts',
            'apps/*/src/**/*.test.ts',
            'test/src/**/*.test.ts',
            'bench/src/**/*.test.ts',
          ],
          exclude: [...exclude, '**/*.int.test.ts', '**/*.e2e.test.ts', '**/*.faults.test.ts'],
        },
      },
      {
        test: {
          name: 'int',
          isolate: false,
          include: [
            'packages/*/src/**/*.int.test.ts',
            'apps/*/src/**/*.int.test.ts',
            'test/src/**/*.int.test.ts',
          ],
          exclude,
          globalSetup: ['test/src/global-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          name: 'e2e',
          isolate: false,
          include: ['test/src/**/*.e2e.test.ts'],
          exclude,
          globalSetup: ['test/src/global-setup.ts'],
          testTimeout: 300_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          // The native cluster (`wharf cluster`) tier, run alone: the cluster's journeys
          // (cluster.faults, cluster-upgrade.faults), a data directory's dev server down, and the
          // faults, one file, one cluster, one swarm that the faults hit in turn
          // (cluster-faults.faults). One file at a time: each brings up a cluster of its own.
          name: 'faults',
          include: ['test/src/**/*.faults.test.ts'],
          exclude,
          // The journeys share the swarm: they run in order, never beside one another.
          sequence: { concurrent: false },
          fileParallelism: false,
          testTimeout: 300_000,
          hookTimeout: 600_000,
        },
      },
    ],
  },
});
