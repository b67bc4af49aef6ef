import { type Embedded, startEmbedded } from '@wharf/orchestrator/embedded';
import { createModelRegistry } from '@wharf/orchestrator/node';
import { CliError } from './cli-error.js';
import { RUN_DRAIN_MS } from './interrupt.js';
import type { CliIo } from './output.js';

/** Options of {@link startRunWorker}. */
export interface RunWorkerOptions {
  dataDir: string;
  address?: string | undefined;
  namespace?: string | undefined;
  /** Default: a task queue of this process's own. */
  taskQueue?: string | undefined;
  uiUrl?: string | undefined;
  concurrency?: number | undefined;
  /** The summarizer's model id; none when undefined. */
  summarizer?: string | undefined;
  /** False: no worker in this process (the task queue's own workers run the swarms). */
  worker?: boolean | undefined;
}

/**
 * The worker `wharf run`, `rerun` and `resume` give a run in this process: the models of the
 * definitions it runs (no `WHARF_MODEL` overrides of its own), the command's summarizer, running
 * steps drained for `RUN_DRAIN_MS` at `stop()`, and no log line for a failed swarm (the command
 * prints the result). No Temporal server is an `UNREACHABLE` CLI error.
 *
 * @example
 * ```ts
 * const embedded = await startRunWorker({ dataDir: '.wharf' }, io);
 * ```
 */
export async function startRunWorker(options: RunWorkerOptions, io: CliIo): Promise<Embedded> {
  return startEmbedded({
    dataDir: options.dataDir,
    models: createModelRegistry(),
    summarizer: options.summarizer ?? false,
    ...(options.address === undefined ? {} : { temporalAddress: options.address }),
    ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
    ...(options.taskQueue === undefined ? {} : { taskQueue: options.taskQueue }),
    ...(options.uiUrl === undefined ? {} : { uiUrl: options.uiUrl }),
    ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
    ...(options.worker === false ? { worker: false } : {}),
    shutdownGraceMs: RUN_DRAIN_MS,
    logSwarmFailures: false,
    onProgress: (message) => io.err(`wharf: ${message}`),
  }).catch((error: Error) => {
    throw new CliError('UNREACHABLE', error.message, { cause: error });
  });
}
