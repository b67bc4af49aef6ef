import { fileURLToPath } from 'node:url';
import type { DataConverter } from '@temporalio/common';
import { type NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createWharfDataConverter } from '../converter/output-store-storage-driver.js';
import { type ActivityDependencies, createActivities } from './create-activities.js';

/** Options of {@link createWharfWorker}. */
export interface WharfWorkerOptions extends ActivityDependencies {
  connection: NativeConnection;
  /** Default `wharf`. */
  taskQueue?: string;
  namespace?: string;
  /**
   * Same converter as the clients. Default `createWharfDataConverter({ store })`: payloads over
   * 256 KiB (a wide swarm's carried state, a join's inputs, a large result) go to the output
   * store and history holds a small claim, so clients need the same store to read them.
   */
  dataConverter?: DataConverter;
  /** Most subagents this worker runs at once. Default 8. */
  maxConcurrentActivities?: number;
  /** A prebuilt workflow bundle (`bundleWorkflowCode({ workflowsPath })`); default: bundle at start. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** Anything else Temporal's `Worker.create` accepts. */
  workerOptions?: Partial<WorkerOptions>;
}

/** Path of the bundled workflow entry point (the deterministic part of Wharf). */
export const workflowsPath = fileURLToPath(new URL('../workflows/index.js', import.meta.url));

/**
 * A Temporal worker that runs Wharf swarms: the bundled `swarmWorkflow` and
 * `agentTaskWorkflow` plus their activities (`runSubagent`, the agent steps)
 * with their dependencies (output store, artifact store, model registry, the `tools` agents
 * may select besides the built-ins) injected. Payloads over 256 KiB are offloaded to the same output
 * store by default (External Storage; see `dataConverter`).
 *
 * @example
 * ```ts
 * const worker = await createWharfWorker({ connection, store, artifacts, models: createModelRegistry(), tools: { lookup } });
 * await worker.run();
 * ```
 */
export async function createWharfWorker(options: WharfWorkerOptions): Promise<Worker> {
  return Worker.create({
    connection: options.connection,
    taskQueue: options.taskQueue ?? 'wharf',
    ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
    dataConverter: options.dataConverter ?? createWharfDataConverter({ store: options.store }),
    ...(options.workflowBundle === undefined
      ? { workflowsPath }
      : { workflowBundle: options.workflowBundle }),
    activities: createActivities(options),
    maxConcurrentActivityTaskExecutions: options.maxConcurrentActivities ?? 8,
    ...options.workerOptions,
  });
}
