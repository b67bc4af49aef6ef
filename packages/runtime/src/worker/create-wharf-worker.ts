import { type NativeConnection, Runtime, Worker, type WorkerOptions } from '@temporalio/worker';
import { type WharfPlugin, type WharfPluginOptions, wharfPlugin } from './wharf-plugin.js';
import { cachedWorkflowBundle } from './workflow-bundle-cache.js';

export { workflowsPath } from './wharf-plugin.js';

/** Where a Wharf worker polls and how much it runs at once. */
export interface WharfWorkerPlacement {
  connection: NativeConnection;
  /** Default `wharf`. */
  taskQueue?: string;
  namespace?: string;
  /** Most subagents this worker runs at once. Default 8. */
  maxConcurrentActivities?: number;
  /**
   * A prebuilt workflow bundle (`bundleWorkflowCode({ workflowsPath, plugins: [plugin] })`, so
   * that tracing's workflow interceptors are in it); default: bundle at start.
   */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /**
   * Without `workflowBundle`: keep the bundle in this folder and load it from there at the next
   * start with the same workflow code (see `cachedWorkflowBundle`; `workflowBundleCacheDir()` is
   * Wharf's usual folder). Default: bundle at every start.
   */
  bundleCache?: string;
  /** Anything else Temporal's `Worker.create` accepts. */
  workerOptions?: Partial<WorkerOptions>;
}

/** Options of {@link createWharfWorker}. */
export interface WharfWorkerOptions extends WharfPluginOptions, WharfWorkerPlacement {}

/**
 * A Temporal worker that runs Wharf swarms: `Worker.create` with {@link wharfPlugin} — the
 * bundled `swarmWorkflow` and `agentTaskWorkflow` plus their activities (`runSubagent`, the
 * agent steps, the context pool's local activities) with their dependencies (output store, artifact store, model
 * registry, the `tools` agents may select besides the built-ins) injected, and the data
 * converter that offloads payloads over 256 KiB to the same output store (External Storage; see
 * `dataConverter`). With `tracing`, OpenTelemetry spans too.
 *
 * @example
 * ```ts
 * const worker = await createWharfWorker({ connection, store, artifacts, models: createModelRegistry(), tools: { lookup } });
 * await worker.run();
 * ```
 */
export async function createWharfWorker(options: WharfWorkerOptions): Promise<Worker> {
  return createWorkerWith(wharfPlugin(options), options);
}

/** `Worker.create` with a built plugin: the one way Wharf's own workers are made. */
export async function createWorkerWith(
  plugin: WharfPlugin,
  placement: WharfWorkerPlacement,
): Promise<Worker> {
  const extraPlugins = placement.workerOptions?.plugins ?? [];
  let workflowBundle = placement.workflowBundle;
  // A worker of workflows of its own (`workerOptions.workflowsPath`) bundles them at start.
  if (
    workflowBundle === undefined &&
    placement.bundleCache !== undefined &&
    placement.workerOptions?.workflowsPath === undefined
  ) {
    const logger = Runtime.instance().logger;
    const { code } = await cachedWorkflowBundle({
      dir: placement.bundleCache,
      plugins: [plugin, ...extraPlugins],
      logger,
      onWarning: (message) => logger.warn(message),
    });
    workflowBundle = { code };
  }
  return Worker.create({
    connection: placement.connection,
    taskQueue: placement.taskQueue ?? 'wharf',
    ...(placement.namespace === undefined ? {} : { namespace: placement.namespace }),
    ...(workflowBundle === undefined ? {} : { workflowBundle }),
    maxConcurrentActivityTaskExecutions: placement.maxConcurrentActivities ?? 8,
    ...placement.workerOptions,
    plugins: [plugin, ...extraPlugins],
  });
}
