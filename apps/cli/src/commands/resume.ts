import { Client } from '@temporalio/client';
import type { DataPlaneIdentity, SwarmResult } from '@wharf/orchestrator';
import { dataPlaneIdentity, resolveDataPlane, startEmbedded } from '@wharf/orchestrator/embedded';
import { InvalidStoreUrlError } from '@wharf/output-store/config';
import { CliError } from '../cli-error.js';
import { followRun } from '../follow-run.js';
import { type CliIo, printJson } from '../output.js';
import { connectServer } from './control.js';
import { printResult } from './run.js';

/** Options of {@link resumeCommand}. */
export interface ResumeOptions {
  dataDir: string;
  /** Default: Temporal's standard configuration (`TEMPORAL_ADDRESS`, a profile), else 127.0.0.1:7233. */
  address?: string;
  namespace?: string;
  follow: boolean;
  json: boolean;
}

/**
 * `wharf resume <workflowId>`: gives a running swarm whose `wharf run` stopped (Ctrl-C, a
 * closed terminal, a crash) a worker again: one in this process, on the run's own task queue,
 * with this data directory's data plane, which must be the run's (else exit 2, naming both).
 * Then follows the swarm to its result like `wharf run`.
 */
export async function resumeCommand(
  workflowId: string,
  options: ResumeOptions,
  io: CliIo,
): Promise<SwarmResult> {
  const run = await describeRun(workflowId, options);
  const own = await ownDataPlane(options.dataDir);
  if (run.dataPlane !== undefined && run.dataPlane.id !== own.id) {
    throw new CliError(
      'USAGE',
      `${workflowId} belongs to data plane ${run.dataPlane.id} (${run.dataPlane.description}), but --data-dir ${options.dataDir} is data plane ${own.id} (${own.description}): resume it with the data directory (or WHARF_STORE and WHARF_BLOBS) it was started with`,
    );
  }
  const embedded = await startEmbedded({
    dataDir: options.dataDir,
    ...(options.address === undefined ? {} : { temporalAddress: options.address }),
    ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
    taskQueue: run.taskQueue,
    onProgress: (message) => io.err(`wharf: ${message}`),
  }).catch((error: Error) => {
    throw new CliError('UNREACHABLE', error.message, { cause: error });
  });
  try {
    io.err(`wharf: resumed ${workflowId} (task queue ${run.taskQueue})`);
    const link = embedded.workflowUrl(workflowId);
    const resultPromise = embedded.wharf.result(workflowId);
    if (options.follow && !options.json)
      await followRun(embedded.wharf, workflowId, { result: resultPromise, until: resultPromise, io });
    const result = await resultPromise;
    if (options.json) printJson(io, { workflowId, url: link, ...result });
    else printResult(io, workflowId, result, link);
    return result;
  } finally {
    await embedded.stop();
  }
}

/** The run's task queue and data plane (from its memo); a typed CLI error when it is not running. */
async function describeRun(
  workflowId: string,
  options: Pick<ResumeOptions, 'address' | 'namespace'>,
): Promise<{ taskQueue: string; dataPlane: DataPlaneIdentity | undefined }> {
  const { connection, namespace } = await connectServer(options).catch((error: unknown) => {
    if (!CliError.isInstance(error) || error.code !== 'UNREACHABLE') throw error;
    throw new CliError(
      'UNREACHABLE',
      `${error.message} (if \`wharf run\` had started its own, start it again with \`wharf dev\` on the same --data-dir)`,
      { cause: error },
    );
  });
  try {
    const client = new Client({ connection, namespace });
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
    if (InvalidStoreUrlError.isInstance(error)) throw new CliError('USAGE', error.message, { cause: error });
    throw error;
  }
}

function memoDataPlane(value: unknown): DataPlaneIdentity | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { id, description } = value as Partial<DataPlaneIdentity>;
  return typeof id === 'string' && typeof description === 'string' ? { id, description } : undefined;
}
