import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Connection } from '@temporalio/client';
import type { KeyRing } from '@wharf/codec';
import { loadTemporalConfig } from '@wharf/orchestrator/client';
import { CliError } from './cli-error.js';
import { connectServer, type ServerOptions } from './connect-server.js';
import type { CliIo } from './output.js';
import { serverHint } from './server-hint.js';

/** A connection {@link connectOrRestartDevServer} made, and the dev server it started again, if any. */
export interface DataDirConnection {
  connection: Connection;
  namespace: string;
  keyRing: KeyRing | undefined;
  /** The address of the data directory's dev server this command started again, else undefined. */
  restarted: string | undefined;
  /** Closes the connection, then stops the dev server it started again (if it did). */
  close(): Promise<void>;
}

/**
 * Connects as every command does (`connectServer`); when no server answers, none is named
 * (`--address`, Temporal's configuration) and the data directory holds a dev server's database
 * (`temporal.db`: a `wharf run` that started its own server stopped with it, its runs waiting
 * there), starts that dev server again as `wharf resume` does (no worker, no Web UI) and
 * connects to it; `close()` stops it again. Otherwise no server answering is an `UNREACHABLE`
 * error (exit 4) saying how to start one.
 *
 * @example
 * ```ts
 * const server = await connectOrRestartDevServer('etl-2026', { dataDir: '.wharf' }, io);
 * try {
 *   await new Client({ connection: server.connection, namespace: server.namespace }).workflow.getHandle('etl-2026').terminate();
 * } finally {
 *   await server.close();
 * }
 * ```
 */
export async function connectOrRestartDevServer(
  workflowId: string,
  options: ServerOptions & { dataDir: string },
  io: CliIo,
): Promise<DataDirConnection> {
  const hinted = (error: CliError) =>
    new CliError('UNREACHABLE', `${error.message}\n${serverHint(workflowId, options.dataDir)}`, {
      cause: error,
    });
  try {
    const connected = await connectServer(options);
    return { ...connected, restarted: undefined, close: () => connected.connection.close() };
  } catch (error) {
    if (!CliError.isInstance(error) || error.code !== 'UNREACHABLE') throw error;
    const named = options.address !== undefined || loadTemporalConfig({}).configured;
    if (named || !existsSync(join(options.dataDir, 'temporal.db'))) throw hinted(error);
  }
  const { startEmbedded } = await import('@wharf/orchestrator/embedded');
  const server = await startEmbedded({
    dataDir: options.dataDir,
    worker: false,
    ui: false,
    ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
    onProgress: (message) => io.err(`wharf: ${message}`),
  }).catch((cause: Error) => {
    throw new CliError(
      'UNREACHABLE',
      `the dev server of ${options.dataDir} did not start: ${cause.message}`,
      {
        cause,
      },
    );
  });
  try {
    const connected = await connectServer({ ...options, address: server.address });
    return {
      ...connected,
      restarted: server.address,
      close: async () => {
        await connected.connection.close();
        await server.stop();
      },
    };
  } catch (error) {
    await server.stop();
    throw error;
  }
}
