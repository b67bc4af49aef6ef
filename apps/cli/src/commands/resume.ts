import { Client } from '@temporalio/client';
import { encryptedDataConverter } from '@wharf/codec';
import type { DataPlaneIdentity, SwarmResult } from '@wharf/orchestrator';
import {
  dataPlaneIdentity,
  type Embedded,
  resolveDataPlane,
  startEmbedded,
} from '@wharf/orchestrator/embedded';
import { CliError } from '../cli-error.js';
import { connectServer } from '../connect-server.js';
import { dataPlaneCliError } from '../data-plane-error.js';
import { modelChoice } from '../model-options.js';
import type { CliIo } from '../output.js';
import { runToEnd } from '../run-lifecycle.js';

/** Options of {@link resumeCommand}. */
export interface ResumeOptions {
  dataDir: string;
  /** Default: Temporal's standard configuration (`TEMPORAL_ADDRESS`, a profile), else 127.0.0.1:7233. */
  address?: string;
  namespace?: string;
  follow: boolean;
  json: boolean;
  /** `--summarizer` (else `WHARF_SUMMARIZER`): the worker's, as `wharf run` gives its own. */
  summarizer?: string | undefined;
}

/**
 * `wharf resume <workflowId>`: gives a running swarm whose `wharf run` stopped (Ctrl-C, a
 * closed terminal, a crash) a worker again: one in this process, on the run's own task queue,
 * with this data directory's data plane, which must be the run's (else exit 2, naming both).
 * When no Temporal server answers and none is configured, it starts this data directory's dev
 * server again first (the one a `wharf run` that started its own left its runs in). Then
 * follows the swarm to its result like `wharf run` (`runToEnd`).
 */
export async function resumeCommand(
  workflowId: string,
  options: ResumeOptions,
  io: CliIo,
): Promise<SwarmResult> {
  const models = modelChoice({ summarizer: options.summarizer }, process.env);
  // The dev server `wharf run` started itself stopped with it: start it again for the run.
  let server: Embedded | undefined;
  let address = options.address;
  const run = await describeRun(workflowId, options).catch(async (error: unknown) => {
    if (!CliError.isInstance(error) || error.code !== 'UNREACHABLE' || address !== undefined) throw error;
    server = await startEmbedded({
      dataDir: options.dataDir,
      worker: false,
      ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
      onProgress: (message) => io.err(`wharf: ${message}`),
    }).catch((cause: Error) => {
      throw new CliError('UNREACHABLE', cause.message, { cause });
    });
    address = server.address;
    return describeRun(workflowId, { ...options, address });
  });
  try {
    const place = {
      ...options,
      ...(address === undefined ? {} : { address }),
      summarizer: models.summarizer,
    };
    return await resumeOn(workflowId, { ...run, restartedServer: server !== undefined }, place, io);
  } finally {
    await server?.stop();
  }
}

async function resumeOn(
  workflowId: string,
  run: { taskQueue: string; dataPlane: DataPlaneIdentity | undefined; restartedServer: boolean },
  options: ResumeOptions,
  io: CliIo,
): Promise<SwarmResult> {
  const own = await ownDataPlane(options.dataDir);
  if (run.dataPlane !== undefined && run.dataPlane.id !== own.id) {
    throw new CliError(
      'USAGE',
      `${workflowId} belongs to data plane ${run.dataPlane.id} (${run.dataPlane.description}), but --data-dir ${options.dataDir} is data plane ${own.id} (${own.description}): resume it with the data directory (or WHARF_STORE and WHARF_BLOBS) it was started with`,
    );
  }
  const { taskQueue } = run;
  // The models are the run's own (in its definition); the summarizer is this command's.
  const worker = {
    dataDir: options.dataDir,
    address: options.address,
    namespace: options.namespace,
    taskQueue,
    summarizer: options.summarizer,
  };
  const lifecycle = {
    worker,
    follow: options.follow,
    json: options.json,
    starting: 'the worker',
    resumeHint: false,
    // A dev server this command started again stops with it, as `wharf run`'s own does.
    startedServer: run.restartedServer,
  };
  return runToEnd(lifecycle, io, async () => ({
    workflowId,
    announce: () => [`wharf: resumed ${workflowId} (task queue ${taskQueue})`],
  }));
}

/** The run's task queue and data plane (from its memo); a typed CLI error when it is not running. */
async function describeRun(
  workflowId: string,
  options: Pick<ResumeOptions, 'address' | 'namespace'>,
): Promise<{ taskQueue: string; dataPlane: DataPlaneIdentity | undefined }> {
  const { connection, namespace, keyRing } = await connectServer(options).catch((error: unknown) => {
    if (!CliError.isInstance(error) || error.code !== 'UNREACHABLE') throw error;
    throw new CliError(
      'UNREACHABLE',
      `${error.message} (if \`wharf run\` had started its own, leave out --address: \`wharf resume\` starts it again from the same --data-dir)`,
      { cause: error },
    );
  });
  try {
    // The memo is encrypted when payloads are: read it with the same key ring.
    const client = new Client({
      connection,
      namespace,
      ...(keyRing === undefined ? {} : { dataConverter: encryptedDataConverter({ keyRing }) }),
    });
    const description = await client.workflow
      .getHandle(workflowId)
      .describe()
      .catch((error: Error) => {
        throw new CliError('NOT_FOUND', `cannot resume ${workflowId}: ${error.message}`, { cause: error });
      });
    if (description.status.name !== 'RUNNING') {
      throw new CliError(
        'NOT_FOUND',
        `${workflowId} is not running (${description.status.name.toLowerCase()}): nothing to resume; \`wharf status ${workflowId}\` shows its result`,
      );
    }
    return { taskQueue: description.taskQueue, dataPlane: memoDataPlane(description.memo?.dataPlane) };
  } finally {
    await connection.close();
  }
}

/** This data directory's data plane, computed without opening (or creating) anything. */
async function ownDataPlane(dataDir: string): Promise<DataPlaneIdentity> {
  try {
    return await dataPlaneIdentity(resolveDataPlane(dataDir));
  } catch (error) {
    throw dataPlaneCliError(error) ?? error;
  }
}

function memoDataPlane(value: unknown): DataPlaneIdentity | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { id, description } = value as Partial<DataPlaneIdentity>;
  return typeof id === 'string' && typeof description === 'string' ? { id, description } : undefined;
}
