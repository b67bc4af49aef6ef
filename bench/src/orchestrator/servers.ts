import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Connection } from '@temporalio/client';
import {
  ClusterTopology,
  findClusterBinaries,
  freeClusterPorts,
  workerEnvironment,
} from '@wharf/cli/cluster';
import { wharfSearchAttributeKinds } from '@wharf/orchestrator';
import { runChainHistory, WharfClient } from '@wharf/orchestrator/client';
import { startDevServer } from '@wharf/orchestrator/dev-server';
import { createWharfDataConverter } from '@wharf/orchestrator/node';
import { cachedWorkflowBundle } from '@wharf/orchestrator/worker';
import { type DataPlane, openDataPlane } from '@wharf/output-store/config';
import type { Benchmark } from '../benchmark.js';
import { formatTable } from '../harness.js';
import { joinedRefs, mapSwarm } from './map-swarm.js';
import { treeCpuSeconds } from './process-cpu.js';
import { startWorkerProcess, type WorkerProcess } from './worker-process.js';

const quiet = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: console.error };
const root = fileURLToPath(new URL('../../../', import.meta.url));
/** Workers on each server, and activity slots in each (the cluster's own: `WHARF_MAX_CONCURRENT`). */
const WORKERS = 2;
const WORKER_SLOTS = 8;
/** The swarm's instances in flight: every slot of both workers busy. */
const SWARM_CONCURRENCY = WORKERS * WORKER_SLOTS;

/** What one server did with the map. */
interface ServerFigures {
  server: string;
  items: number;
  seconds: number;
  runs: number;
  largestRunBytes: number;
  historyBytes: number;
  /** CPU seconds of the Temporal server's processes, and of PostgreSQL's, during the swarm. */
  temporalCpu: number;
  postgresCpu: number;
}

/** The map's size: `WHARF_BENCH_SERVERS_ITEMS`, else 10,000 (smoke: 60). */
function itemCount(smoke: boolean): number {
  const fromEnv = Number.parseInt(process.env.WHARF_BENCH_SERVERS_ITEMS ?? '', 10);
  return Number.isFinite(fromEnv) && fromEnv > 0 ? fromEnv : smoke ? 60 : 10_000;
}

/**
 * The same map on both servers Wharf runs on: the dev server (`temporal server start-dev`: one
 * process, SQLite in memory) and the native topology (`wharf cluster`: the Temporal server built
 * from `go.temporal.io/server` on PostgreSQL). Everything else is held equal: two shipped worker
 * processes with eight slots each, the cluster's PostgreSQL and S3 as the data plane of both, the
 * sandbox as the cluster's workers run it, the same swarm (a map over a stored list of N items,
 * one trivial script each, and a join that counts every ref). Prints subagents/s, the largest run
 * history, and the CPU seconds per activity of the Temporal server and of PostgreSQL (whose
 * difference between the two sides is Temporal's persistence, since the store's share is the same).
 */
export const serversBenchmark: Benchmark = {
  name: 'orchestrator-servers',
  async run(options) {
    try {
      findClusterBinaries(process.env);
    } catch (error) {
      return `skipped: the native cluster's binaries are not built (${(error as Error).message}); .ci/toolchain.sh builds them (wharf_ensure_temporal_server)`;
    }
    const items = itemCount(options.smoke);
    const dir = await mkdtemp(join(tmpdir(), 'wharf-bench-servers-'));
    // PostgreSQL runs as its own user when this runs as root: it must pass through the folder.
    await chmod(dir, 0o755);
    const cacheDir = join(dir, 'cache');
    const cluster = new ClusterTopology(
      { dir: join(dir, 'cluster'), root, ports: await freeClusterPorts(WORKERS), workers: WORKERS },
      { env: { ...process.env } },
    );
    let plane: DataPlane | undefined;
    const figures: ServerFigures[] = [];
    try {
      const upStarted = performance.now();
      await cluster.up();
      const upSeconds = (performance.now() - upStarted) / 1000;
      const clientEnv = cluster.clientEnvironment();
      plane = await openDataPlane({
        store: clientEnv.WHARF_STORE as string,
        blobs: clientEnv.WHARF_BLOBS as string,
        env: { ...process.env, ...clientEnv },
      });
      const postgresPid = await cluster.pid('postgresql');
      await cachedWorkflowBundle({ dir: cacheDir, logger: quiet });

      // The dev server, with two workers that use the cluster's data plane as its own do.
      const devServer = await startDevServer({ ui: false, searchAttributes: wharfSearchAttributeKinds });
      const workers: WorkerProcess[] = [];
      try {
        for (let n = 1; n <= WORKERS; n++) {
          const env = workerEnvironment(cluster.config, process.env, n);
          const home = join(dir, `dev-worker-${n}`);
          await mkdir(join(home, 'tmp'), { recursive: true });
          workers.push(
            await startWorkerProcess({
              address: devServer.address,
              dataDir: join(home, 'data'),
              taskQueue: 'bench-servers',
              concurrency: WORKER_SLOTS,
              cacheDir,
              cwd: home,
              env: Object.fromEntries(
                Object.entries({
                  ...env,
                  TEMPORAL_ADDRESS: devServer.address,
                  TEMPORAL_NAMESPACE: devServer.namespace,
                  WHARF_TASK_QUEUE: 'bench-servers',
                  WHARF_DATA_DIR: join(home, 'data'),
                  WHARF_HEALTH_PORT: '0',
                  WHARF_MAX_CONCURRENT: String(WORKER_SLOTS),
                  WHARF_SHUTDOWN_GRACE_MS: '0',
                  WHARF_DEPLOYMENT_NAME: undefined,
                  WHARF_BUILD_ID: undefined,
                  HOME: home,
                  TMPDIR: join(home, 'tmp'),
                }).filter((entry): entry is [string, string] => entry[1] !== undefined),
              ),
            }),
          );
        }
        figures.push(
          await runMap({
            server: 'dev server (start-dev, SQLite)',
            address: devServer.address,
            namespace: devServer.namespace,
            taskQueue: 'bench-servers',
            temporalPid: devServer.pid,
            postgresPid,
            plane,
            items,
          }),
        );
      } finally {
        for (const worker of workers) await worker.stop();
        await devServer.stop();
      }

      // The native topology: its own two workers, on its task queue.
      figures.push(
        await runMap({
          server: 'native cluster (PostgreSQL)',
          address: cluster.temporalAddress,
          namespace: clientEnv.TEMPORAL_NAMESPACE ?? 'default',
          taskQueue: workerEnvironment(cluster.config, process.env, 1).WHARF_TASK_QUEUE ?? 'wharf',
          temporalPid: (await cluster.pid('temporal')) ?? -1,
          postgresPid,
          plane,
          items,
        }),
      );
      return report(figures, upSeconds);
    } finally {
      await plane?.close().catch(() => {});
      await cluster.down().catch((error: unknown) => console.error(`cluster down: ${String(error)}`));
      await rm(dir, { recursive: true, force: true });
    }
  },
};

async function runMap(side: {
  server: string;
  address: string;
  namespace: string;
  taskQueue: string;
  temporalPid: number;
  postgresPid: number | undefined;
  plane: DataPlane;
  items: number;
}): Promise<ServerFigures> {
  const connection = await Connection.connect({ address: side.address });
  try {
    const wharf = new WharfClient({
      connection,
      namespace: side.namespace,
      taskQueue: side.taskQueue,
      dataConverter: createWharfDataConverter({ store: side.plane.store }),
    });
    const definition = mapSwarm({
      name: 'servers',
      list: `seq 0 ${side.items - 1}`,
      item: 'echo "$WHARF_INSTANCE"',
    });
    const cpu = async () => ({
      temporal: await treeCpuSeconds(side.temporalPid),
      postgres: side.postgresPid === undefined ? 0 : await treeCpuSeconds(side.postgresPid),
    });
    const before = await cpu();
    const started = performance.now();
    const { workflowId, firstExecutionRunId } = await wharf.startSwarm(
      definition,
      {},
      { maxConcurrentTasks: SWARM_CONCURRENCY },
    );
    const result = await wharf.result(workflowId);
    const seconds = (performance.now() - started) / 1000;
    const after = await cpu();
    if (result.status !== 'completed')
      throw new Error(`${side.server}: swarm of ${side.items} items ${result.status}`);
    const seen = await joinedRefs(side.plane.store, result.outputs.join?.[0]);
    if (seen !== side.items)
      throw new Error(`${side.server}: the join saw ${seen} refs, expected ${side.items}`);
    const runs = await runChainHistory(wharf.client, workflowId, firstExecutionRunId);
    return {
      server: side.server,
      items: side.items,
      seconds,
      runs: runs.length,
      largestRunBytes: Math.max(...runs.map((run) => run.historyBytes)),
      historyBytes: runs.reduce((sum, run) => sum + run.historyBytes, 0),
      temporalCpu: after.temporal - before.temporal,
      postgresCpu: after.postgres - before.postgres,
    };
  } finally {
    await connection.close();
  }
}

function report(figures: readonly ServerFigures[], upSeconds: number): string {
  const [dev, native] = figures;
  if (dev === undefined || native === undefined) return 'no figures';
  const activities = (side: ServerFigures) => side.items + 2;
  const ms = (seconds: number, side: ServerFigures) => ((seconds * 1000) / activities(side)).toFixed(2);
  const table = formatTable(
    `a map of ${dev.items} trivial scripts on each server, ${WORKERS} workers × ${WORKER_SLOTS} slots, data plane PostgreSQL + S3 on both`,
    [
      {
        name: `${dev.items}: subagents/s, native cluster vs dev server`,
        ours: native.items / native.seconds,
        baseline: dev.items / dev.seconds,
        target: 'info',
      },
      {
        name: `${dev.items}: activities per Temporal CPU second, native vs dev server`,
        ours: activities(native) / Math.max(native.temporalCpu, 1e-3),
        baseline: activities(dev) / Math.max(dev.temporalCpu, 1e-3),
        target: 'info',
      },
    ],
  );
  const lines = figures.map(
    (side) =>
      `${side.server}: ${side.items} items in ${side.seconds.toFixed(1)} s, ${(side.items / side.seconds).toFixed(1)} subagents/s; ` +
      `${side.runs} runs, largest run history ${side.largestRunBytes} B (${side.historyBytes} B in all); ` +
      `per activity: Temporal server ${ms(side.temporalCpu, side)} ms CPU, PostgreSQL ${ms(side.postgresCpu, side)} ms CPU ` +
      `(${side.temporalCpu.toFixed(1)} s and ${side.postgresCpu.toFixed(1)} s in all)`,
  );
  lines.push(
    `Temporal's persistence on PostgreSQL: ${ms(native.postgresCpu - dev.postgresCpu, native)} ms of PostgreSQL CPU per activity beyond the store's own share; cluster up in ${upSeconds.toFixed(1)} s`,
  );
  return [table, ...lines].join('\n');
}
