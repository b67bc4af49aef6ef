import { fileURLToPath } from 'node:url';
import type { DataConverter } from '@temporalio/common';
import { type NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { type ActivityDependencies, createActivities } from '../activities/create-activities.js';

/** Options of {@link createWharfWorker}. */
export interface WharfWorkerOptions extends ActivityDependencies {
  connection: NativeConnection;
  /** Default `wharf`. */
  taskQueue?: string;
  namespace?: string;
  /** Same converter as the clients (e.g. `createWharfDataConverter`). */
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
 * A Temporal worker that runs Wharf swarms: the bundled `swarmWorkflow` plus the
 * `runSubagent` and `supervise` activities with their dependencies (output store, artifact
 * store, model registry) injected.
 *
 * @example
 * ```ts
 * const worker = await createWharfWorker({ connection, store, artifacts, models: createModelRegistry() });
 * await worker.run();
 * ```
 */
export async function createWharfWorker(options: WharfWorkerOptions): Promise<Worker> {
  return Worker.create({
    connection: options.connection,
    taskQueue: options.taskQueue ?? 'wharf',
    ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
    ...(options.dataConverter === undefined ? {} : { dataConverter: options.dataConverter }),
    ...(options.workflowBundle === undefined
      ? { workflowsPath }
      : { workflowBundle: options.workflowBundle }),
    activities: createActivities(options),
    maxConcurrentActivityTaskExecutions: options.maxConcurrentActivities ?? 8,
    ...options.workerOptions,
  });
}
