import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { wharfSearchAttributeKinds } from '@wharf/orchestrator';
import { runChainHistory, WharfClient } from '@wharf/orchestrator/client';
import { startDevServer } from '@wharf/orchestrator/dev-server';
import { createWharfDataConverter } from '@wharf/orchestrator/node';
import { cachedWorkflowBundle } from '@wharf/orchestrator/worker';
import { SqliteOutputStore } from '@wharf/output-store';
import type { Benchmark } from '../benchmark.js';
import { type BenchRow, formatTable } from '../harness.js';
import { joinedRefs, mapSwarm } from './map-swarm.js';
import { startWorkerProcess } from './worker-process.js';

const quiet = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: console.error };
const MIB = 1024 * 1024;
const KIB = 1024;
/** Worker activity slots, and the swarm's instances in flight (as `orchestrator-wide`). */
const WORKER_CONCURRENCY = 32;
const SWARM_CONCURRENCY = 64;
/**
 * Events a run may hold before it continues as new: low enough that every size spans several
 * runs, so the sizes are compared on the same payloads (a start input, a carried state).
 */
const HISTORY_EVENT_LIMIT = 2_000;

/** What one wide map left: its sizes, time and the worker's memory. */
interface WideMapFigures {
  items: number;
  seconds: number;
  runs: number;
  historyBytes: number;
  /** The chain's history as JSON (`temporal workflow show --output json`), every run. */
  historyJsonBytes: number;
  /** Temporal Cloud actions of every run of the chain (`billableActions`). */
  actions: number;
  largestRun: number;
  largestPayload: number;
  peakRss: number;
  /** The worker process's RSS when the swarm started (its modules, the loaded workflow bundle). */
  startRss: number;
  /** Seconds and events of every run of the chain, first first. */
  runSeconds: number[];
  runEvents: number[];
  /**
   * Mean seconds of a run in the first and in the last half of the full runs of the chain (the
   * last run, with the join, left out).
   */
  firstRunSeconds?: number;
  lastRunSeconds?: number;
  /** CPU seconds of the worker process, and of its main thread, from the swarm's start to its result. */
  workerCpuSeconds: number;
  mainThreadCpuSeconds: number;
}

/**
 * The sizes to run: `WHARF_BENCH_WIDE_MAP_SIZES` (comma-separated, e.g. `1000,10000,100000`),
 * else 1,000 and 10,000 (smoke: 150 and 300, each spanning runs of the chain under the smoke's
 * 300-event bound, so their payloads compare like with like).
 */
function sizes(smoke: boolean): number[] {
  const fromEnv = process.env.WHARF_BENCH_WIDE_MAP_SIZES;
  if (fromEnv !== undefined && fromEnv.trim() !== '')
    return fromEnv.split(',').map((size) => Number.parseInt(size.trim(), 10));
  return smoke ? [150, 300] : [1_000, 10_000];
}

/**
 * A map over a runtime list stored as a task's output (`seq` printing N lines), one trivial
 * script per item, and a join that counts every ref, through `swarmWorkflow` on a dev server
 * with a low history bound (every size spans several runs). At each size: every run's history under 4 MiB, the
 * largest payload under 16 KiB and the same at every size (the items and the out ids stay in
 * the store), the peak RSS of the worker (the shipped `@wharf/worker` in a process of its own, a
 * new one per size) under 512 MiB, subagents/s, and whether the last
 * full run of the chain is as fast as the first.
 */
export const wideMapBenchmark: Benchmark = {
  name: 'orchestrator-wide-map',
  async run(options) {
    const dir = await mkdtemp(join(tmpdir(), 'wharf-bench-wide-map-'));
    const dataDir = join(dir, 'data');
    const cacheDir = join(dir, 'cache');
    const server = await startDevServer({ ui: false, searchAttributes: wharfSearchAttributeKinds });
    const connection = await Connection.connect({ address: server.address });
    let store: SqliteOutputStore | undefined;
    try {
      // The worker is the shipped one in a process of its own (its memory is its alone), loading
      // the workflow bundle built here once, as a worker with a warm `WHARF_CACHE_DIR` does.
      await cachedWorkflowBundle({ dir: cacheDir, logger: quiet });
      const taskQueue = 'bench-wide-map';
      const figures: WideMapFigures[] = [];
      // A new worker process for each size, so each size's peak is its own.
      for (const items of sizes(options.smoke)) {
        const worker = await startWorkerProcess({
          address: server.address,
          dataDir,
          taskQueue,
          concurrency: WORKER_CONCURRENCY,
          cacheDir,
        });
        try {
          // Opened once the first worker made the data directory and its store.
          store ??= new SqliteOutputStore({ path: join(dataDir, 'outputs.db') });
          const wharf = new WharfClient({
            connection,
            taskQueue,
            dataConverter: createWharfDataConverter({ store }),
          });
          const definition = mapSwarm({
            name: 'wide-map',
            list: `seq 0 ${items - 1} | sed "s/^/doc-/"`,
            item: 'echo "$WHARF_INSTANCE"',
          });
          const startRss = await worker.rss();
          const startCpu = await worker.cpuSeconds();
          const started = performance.now();
          const { workflowId, firstExecutionRunId } = await wharf.startSwarm(
            definition,
            {},
            {
              maxConcurrentTasks: SWARM_CONCURRENCY,
              historyEventLimit: options.smoke ? 300 : HISTORY_EVENT_LIMIT,
            },
          );
          const result = await wharf.result(workflowId);
          const seconds = (performance.now() - started) / 1000;
          const endCpu = await worker.cpuSeconds();
          const peakRss = await worker.peakRss();
          if (result.status !== 'completed') throw new Error(`swarm of ${items} items ${result.status}`);
          const seen = await joinedRefs(store, result.outputs.join?.[0]);
          if (seen !== items) throw new Error(`the join saw ${seen} refs, expected ${items}`);
          const runs = await runChainHistory(wharf.client, workflowId, firstExecutionRunId);
          const durations = await Promise.all(
            runs.map(async (run) => {
              const info = await wharf.client.workflow.getHandle(workflowId, run.runId).describe();
              return ((info.closeTime?.getTime() ?? Date.now()) - info.startTime.getTime()) / 1000;
            }),
          );
          // The last run finishes the loop and runs the join: only the runs before it are alike.
          // Halves, not single runs: one run's time moves with the machine's other load.
          const full = durations.slice(0, -1);
          const half = Math.floor(full.length / 2);
          const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
          figures.push({
            items,
            seconds,
            runs: runs.length,
            historyBytes: runs.reduce((sum, run) => sum + run.historyBytes, 0),
            historyJsonBytes: runs.reduce((sum, run) => sum + run.historyJsonBytes, 0),
            actions: runs.reduce((sum, run) => sum + run.actions, 0),
            largestRun: Math.max(...runs.map((run) => run.historyBytes)),
            largestPayload: Math.max(...runs.map((run) => run.largestPayloadBytes)),
            peakRss,
            startRss,
            runSeconds: durations,
            runEvents: runs.map((run) => run.events),
            workerCpuSeconds: endCpu.process - startCpu.process,
            mainThreadCpuSeconds: endCpu.mainThread - startCpu.mainThread,
            ...(half >= 1
              ? { firstRunSeconds: mean(full.slice(0, half)), lastRunSeconds: mean(full.slice(-half)) }
              : {}),
          });
        } finally {
          await worker.stop();
        }
      }
      return report(figures);
    } finally {
      await store?.close();
      await connection.close();
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    }
  },
};

/** The table (budget rows, and the runs' speed as a ratio) and lines of figures per size. */
function report(figures: readonly WideMapFigures[]): string {
  const rows: BenchRow[] = [];
  for (const size of figures) {
    rows.push(
      {
        name: `${size.items}: largest run history`,
        measured: size.largestRun / KIB,
        budget: 4096,
        unit: 'KiB',
      },
      {
        name: `${size.items}: largest payload`,
        measured: size.largestPayload / KIB,
        budget: 16,
        unit: 'KiB',
      },
      { name: `${size.items}: worker peak RSS`, measured: size.peakRss / MIB, budget: 512, unit: 'MiB' },
      {
        name: `${size.items}: history JSON per subagent`,
        measured: size.historyJsonBytes / size.items,
        budget: 2_400,
        unit: 'B',
      },
      {
        name: `${size.items}: Temporal actions per subagent`,
        measured: size.actions / size.items,
        budget: 1.5,
        unit: 'actions',
      },
    );
    if (size.firstRunSeconds !== undefined && size.lastRunSeconds !== undefined)
      rows.push({
        name: `${size.items}: runs' speed, last half vs first half`,
        ours: 1 / size.lastRunSeconds,
        baseline: 1 / size.firstRunSeconds,
        target: 0.8,
      });
  }
  const smallest = figures[0];
  const largest = figures.at(-1);
  // A run carries at most MAX_CHUNKS (8) chunk refs of a loop's results, one more each time a
  // run stores what it folded before continuing as new: the payload may grow by that much (under
  // 1 KiB) from a list too short to have a chunk, and not beyond.
  if (smallest !== undefined && largest !== undefined && largest !== smallest)
    rows.push({
      name: `largest payload at ${largest.items} (budget: at ${smallest.items} + 1 KiB)`,
      measured: largest.largestPayload,
      budget: smallest.largestPayload + KIB,
      unit: 'B',
    });
  const lines = figures.map(
    (size) =>
      `${size.items} items: ${size.seconds.toFixed(1)} s, ${(size.items / size.seconds).toFixed(1)} subagents/s; ` +
      `${size.runs} runs, history ${size.historyBytes} B in total (largest run ${size.largestRun} B), ` +
      `largest payload ${size.largestPayload} B; per subagent ${(size.historyBytes / size.items).toFixed(0)} B of history, ` +
      `${(size.historyJsonBytes / size.items).toFixed(0)} B as JSON, ${(size.actions / size.items).toFixed(2)} Temporal actions (${size.actions} in all); worker peak RSS ${(size.peakRss / MIB).toFixed(0)} MiB (${(size.startRss / MIB).toFixed(0)} MiB at its start); ` +
      `worker CPU ${((1_000 * size.workerCpuSeconds) / size.items).toFixed(2)} ms a subagent, of it the main thread ${((1_000 * size.mainThreadCpuSeconds) / size.items).toFixed(2)} ms` +
      (size.firstRunSeconds === undefined
        ? ''
        : `; a run took ${size.firstRunSeconds.toFixed(1)} s in the first half of the chain, ${size.lastRunSeconds?.toFixed(1)} s in the last`),
  );
  for (const size of figures)
    lines.push(
      `${size.items} items, each run's seconds/events: ${size.runSeconds.map((seconds, index) => `${seconds.toFixed(1)}/${size.runEvents[index]}`).join(' ')}`,
    );
  return [
    formatTable(
      `a map over a stored list of N lines + a join over every ref (worker concurrency ${WORKER_CONCURRENCY})`,
      rows,
    ),
    ...lines,
  ].join('\n');
}
