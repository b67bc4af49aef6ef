import { mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Connection } from '@temporalio/client';
import { WharfClient } from '@wharf/orchestrator/client';
import { createWharfDataConverter } from '@wharf/orchestrator/node';
import { type OutputStore, SqliteOutputStore } from '@wharf/output-store';
import type { DataPlane } from '@wharf/output-store/config';
import { itemScript, readItemLog, untilLogged } from './item-log.js';
import { joinedRefs, mapSwarm } from './map-swarm.js';
import {
  cpuSpent,
  kernelThreadsCpuSeconds,
  machineCpuSeconds,
  serverCpuSpent,
  treeCpuSeconds,
} from './process-cpu.js';
import { type RunEvents, runChainEvents } from './run-chain-events.js';
import { startWorkerProcess } from './worker-process.js';

/** How the Wharf side runs (printed with the row). */
export interface WharfFanOutSettings {
  /** Worker activity slots (`WHARF_MAX_CONCURRENT`): the scripts run at once. */
  workerConcurrency: number;
  /** The swarm's instances in flight (`maxConcurrentTasks`). */
  swarmConcurrency: number;
  /** Events a run holds before it continues as new (`historyEventLimit`). */
  historyEventLimit: number;
  /** `WHARF_SANDBOX` of the worker (unset: its default, `auto`). */
  sandbox?: string | undefined;
}

/** What {@link runWharfFanOut} runs. */
export interface WharfFanOutOptions extends WharfFanOutSettings {
  items: number;
  /** The Temporal frontend, its namespace, and a client connection to it. */
  address: string;
  namespace: string;
  /** CPU seconds so far of each of the server's processes, by name, read with the worker's. */
  serverCpuSeconds: () => Promise<Record<string, number>>;
  connection: Connection;
  /** The worker's data plane (`WHARF_STORE`, `WHARF_BLOBS` and their credentials); none: its SQLite file. */
  workerEnv?: Record<string, string>;
  /** The data plane those variables name, read by the client; none: the worker's SQLite file. */
  plane?: DataPlane;
  /** Bytes the data plane holds, read before and after the run; none: the worker's SQLite file after it. */
  storeBytes?: () => Promise<number>;
  /** A directory of this run's own: data directory, item log. */
  dir: string;
  /** A workflow bundle cache already holding the bundle (`WHARF_CACHE_DIR`). */
  cacheDir: string;
  /** SIGKILL the worker once half the items have run, then start a new one. */
  killAtHalf: boolean;
}

/** What one Wharf fan-out left. */
export interface WharfFanOutFigures {
  /** What the worker said of its sandbox. */
  sandbox: string;
  seconds: number;
  /** The worker process's peak RSS (`VmHWM`; the last worker's after a kill). */
  peakRss: number;
  /** Refs the join counted: the items in the swarm's result. */
  itemsInResult: number;
  /** Script runs logged before the SIGKILL (0 without one). */
  runsBeforeKill: number;
  redone: number;
  /** Bytes of the run chain's histories, and of the output store's files after the run. */
  historyBytes: number;
  storeBytes: number;
  runs: RunEvents[];
  /**
   * CPU seconds from the swarm's start to its result: the worker process and its main thread,
   * the worker's process tree (with its spawn server, sandbox and scripts), the Temporal server's
   * tree, the kernel's threads, and the whole machine. Undefined with a kill: the killed worker's share is not read.
   */
  cpu?: {
    process: number;
    mainThread: number;
    workerTree: number;
    /** The server's processes together, and each by name. */
    server: number;
    serverParts: Record<string, number>;
    kernel: number;
    machine: number;
  };
}

/**
 * The headline fan-out through Wharf: a map over a stored list of `items` lines (`seq`), one
 * script per item through the shipped `@wharf/worker` in a process of its own (its spawn server
 * starts the scripts, in its sandbox where it has one; `dir` is their working directory), and a join counting every ref, as `orchestrator-wide-map` runs it. With
 * `killAtHalf` the worker is SIGKILLed once half the scripts have run and a new worker takes
 * over the same task queue; the workflow continues. Counts the items redone (script runs past
 * the first of an item) and the items in the result.
 *
 * @example
 * ```ts
 * const figures = await runWharfFanOut({ items: 1000, address, connection, dir, cacheDir,
 *   killAtHalf: false, workerConcurrency: 32, swarmConcurrency: 64, historyEventLimit: 2000 });
 * console.log(1000 / figures.seconds, 'subagents/s');
 * ```
 */
export async function runWharfFanOut(options: WharfFanOutOptions): Promise<WharfFanOutFigures> {
  const dataDir = join(options.dir, 'data');
  const log = join(options.dir, 'items.log');
  await mkdir(dataDir, { recursive: true });
  const taskQueue = `bench-peers-${options.killAtHalf ? 'kill' : 'run'}`;
  const workerOptions = {
    address: options.address,
    namespace: options.namespace,
    dataDir,
    taskQueue,
    concurrency: options.workerConcurrency,
    cacheDir: options.cacheDir,
    // The scripts' working directory: a sandboxed script may write there (its log) and not in /tmp.
    cwd: options.dir,
    env: {
      ...options.workerEnv,
      ...(options.sandbox === undefined ? {} : { WHARF_SANDBOX: options.sandbox }),
    },
  };
  let worker = await startWorkerProcess(workerOptions);
  const ownStore =
    options.plane === undefined ? new SqliteOutputStore({ path: join(dataDir, 'outputs.db') }) : undefined;
  const store: OutputStore = options.plane?.store ?? (ownStore as OutputStore);
  // The worker's own SQLite file is new with the run: all of it counts.
  const storeBytes = options.storeBytes ?? (() => filesBytes(join(dataDir, 'outputs.db')));
  try {
    const wharf = new WharfClient({
      connection: options.connection,
      namespace: options.namespace,
      taskQueue,
      dataConverter: createWharfDataConverter({ store }),
    });
    const definition = mapSwarm({
      name: 'fan-out',
      list: `seq 0 ${options.items - 1}`,
      item: itemScript(log),
    });
    const cpu = async () => ({
      ...(await worker.cpuSeconds()),
      workerTree: await treeCpuSeconds(worker.pid),
      kernel: await kernelThreadsCpuSeconds(),
      machine: await machineCpuSeconds(),
    });
    const bytesBefore = options.storeBytes === undefined ? 0 : await storeBytes();
    const startServer = await options.serverCpuSeconds();
    const startCpu = await cpu();
    const started = performance.now();
    const { workflowId, firstExecutionRunId } = await wharf.startSwarm(
      definition,
      {},
      { maxConcurrentTasks: options.swarmConcurrency, historyEventLimit: options.historyEventLimit },
    );
    let runsBeforeKill = 0;
    if (options.killAtHalf) {
      await Promise.race([
        untilLogged(log, Math.ceil(options.items / 2)),
        wharf.result(workflowId).then(() => {
          throw new Error('the Wharf fan-out ended before half its items had run');
        }),
      ]);
      await worker.kill();
      runsBeforeKill = (await readItemLog(log)).runs;
      worker = await startWorkerProcess(workerOptions);
    }
    const result = await wharf.result(workflowId);
    const seconds = (performance.now() - started) / 1000;
    const endCpu = await cpu();
    const endServer = await options.serverCpuSeconds();
    const peakRss = await worker.peakRss();
    if (result.status !== 'completed')
      throw new Error(`the Wharf fan-out of ${options.items} ${result.status}`);
    const itemsInResult = await joinedRefs(store, result.outputs.join?.[0]);
    const runs = await runChainEvents(wharf.client, workflowId, firstExecutionRunId);
    return {
      sandbox: worker.sandbox,
      seconds,
      peakRss,
      itemsInResult,
      runsBeforeKill,
      redone: (await readItemLog(log)).redone,
      historyBytes: runs.reduce((sum, run) => sum + run.historyBytes, 0),
      storeBytes: (await storeBytes()) - bytesBefore,
      runs,
      ...(options.killAtHalf
        ? {}
        : {
            cpu: { ...cpuSpent(startCpu, endCpu), ...serverCpuSpent(startServer, endServer) },
          }),
    };
  } finally {
    await worker.stop();
    await ownStore?.close();
  }
}

/**
 * Bytes of an SQLite database on disk: the file and its write-ahead log.
 *
 * @example
 * ```ts
 * await filesBytes('/tmp/data/outputs.db'); // outputs.db + outputs.db-wal
 * ```
 */
export async function filesBytes(path: string): Promise<number> {
  let total = 0;
  for (const file of [path, `${path}-wal`]) {
    total += await stat(file).then(
      (info) => info.size,
      () => 0,
    );
  }
  return total;
}
