import { fileURLToPath } from 'node:url';
import { Client, type Connection } from '@temporalio/client';
import { bundleWorkflowCode, type NativeConnection, Worker } from '@temporalio/worker';
import { type CeilingScript, ceilingActivities } from './ceiling-activities.js';
import type { ceilingWorkflow } from './ceiling-workflow.js';
import { cpuSpent, machineCpuSeconds, serverCpuSpent, treeCpuSeconds } from './process-cpu.js';
import { type RunEvents, runChainEvents } from './run-chain-events.js';

const quiet = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: console.error };

/** What {@link runCeiling} runs: the Wharf side's concurrency structure. */
export interface CeilingOptions {
  items: number;
  connection: Connection;
  nativeConnection: NativeConnection;
  namespace: string;
  /** Worker activity slots (`maxConcurrentActivityTaskExecutions`), as Wharf's worker has. */
  workerConcurrency: number;
  /** Activities in flight, as the swarm's `maxConcurrentTasks`. */
  inFlight: number;
  /** Events a run holds before it continues as new, as the swarm's `historyEventLimit`. */
  historyEventLimit: number;
  /** CPU seconds so far of each of the server's processes, by name. */
  serverCpuSeconds: () => Promise<Record<string, number>>;
  /** Each activity runs this script instead of nothing (the item's, through a spawner). */
  script?: CeilingScript;
}

/** What the ceiling run left. */
export interface CeilingFigures {
  seconds: number;
  runs: RunEvents[];
  /** The worker's settings, printed with the row. */
  settings: string;
  /**
   * CPU seconds of the timed run: this process (the worker and the client; with a script, its
   * spawn server and the scripts too), the Temporal server's tree, and the whole machine.
   */
  cpu: { worker: number; server: number; serverParts: Record<string, number>; machine: number };
}

/**
 * The engine's own limit: `items` activities that do nothing (or, with `script`, that each run
 * the item's script and nothing more), through `ceilingWorkflow` on the given server, on a plain
 * Temporal worker with the settings Wharf's worker has (`createWharfWorker` sets
 * `maxConcurrentActivityTaskExecutions` and leaves every other option at the SDK's default), in
 * this process. The worker is warmed with a short run first.
 *
 * @example
 * ```ts
 * const { seconds } = await runCeiling({ items: 10_000, connection, nativeConnection, namespace: 'default',
 *   serverCpuSeconds: async () => ({ 'Temporal server': await treeCpuSeconds(server.pid) }),
 *   workerConcurrency: 32, inFlight: 64, historyEventLimit: 2_000 });
 * ```
 */
export async function runCeiling(options: CeilingOptions): Promise<CeilingFigures> {
  const work = options.script === undefined ? 'noop' : 'script';
  const taskQueue = `bench-ceiling-${work}`;
  const worker = await Worker.create({
    connection: options.nativeConnection,
    namespace: options.namespace,
    taskQueue,
    workflowBundle: await bundleWorkflowCode({
      workflowsPath: fileURLToPath(new URL('./ceiling-workflow.js', import.meta.url)),
      logger: quiet,
    }),
    activities: ceilingActivities(options.script),
    maxConcurrentActivityTaskExecutions: options.workerConcurrency,
  });
  const client = new Client({ connection: options.connection, namespace: options.namespace });
  const start = (items: number, id: string) =>
    client.workflow.start<typeof ceilingWorkflow>('ceilingWorkflow', {
      taskQueue,
      workflowId: `${id}-${work}-${Date.now()}`,
      args: [
        { count: items, inFlight: options.inFlight, historyEventLimit: options.historyEventLimit, work },
      ],
    });
  return worker.runUntil(async () => {
    await (await start(Math.min(options.items, 50), 'ceiling-warmup')).result();
    const cpu = async () => {
      const own = process.cpuUsage();
      const helper = options.script?.spawner.pid;
      return {
        worker: (own.user + own.system) / 1e6 + (helper === undefined ? 0 : await treeCpuSeconds(helper)),
        machine: await machineCpuSeconds(),
      };
    };
    const startServer = await options.serverCpuSeconds();
    const startCpu = await cpu();
    const started = performance.now();
    const handle = await start(options.items, 'ceiling');
    const done = await handle.result();
    const seconds = (performance.now() - started) / 1000;
    const endCpu = await cpu();
    const endServer = await options.serverCpuSeconds();
    if (done !== options.items) throw new Error(`the ceiling ran ${done} activities of ${options.items}`);
    const runs = await runChainEvents(client, handle.workflowId, handle.firstExecutionRunId);
    return {
      seconds,
      runs,
      settings: workerSettings(worker),
      cpu: { ...cpuSpent(startCpu, endCpu), ...serverCpuSpent(startServer, endServer) },
    };
  });
}

/** The worker options that decide its throughput, as the SDK compiled them. */
function workerSettings(worker: Worker): string {
  const options = worker.options as unknown as Record<string, unknown>;
  const slots = (kind: string) => {
    const tuner = options.tuner as Record<string, { numSlots?: number } | undefined> | undefined;
    return tuner?.[kind]?.numSlots;
  };
  const poller = (key: string) => {
    const behavior = options[key] as { maximum?: number; type?: string } | undefined;
    return behavior?.maximum ?? behavior?.type;
  };
  return [
    `activity slots ${slots('activityTaskSlotSupplier') ?? options.maxConcurrentActivityTaskExecutions}`,
    `workflow task slots ${slots('workflowTaskSlotSupplier') ?? options.maxConcurrentWorkflowTaskExecutions}`,
    `workflow task pollers ${poller('workflowTaskPollerBehavior')}`,
    `activity task pollers ${poller('activityTaskPollerBehavior')}`,
    `max cached workflows ${options.maxCachedWorkflows}`,
    `workflow thread pool ${options.workflowThreadPoolSize}`,
    `reuseV8Context ${options.reuseV8Context}`,
  ].join(', ');
}
