import type { Connection } from '@temporalio/client';
import { connectTemporal, loadTemporalConfig, WharfClient } from '@wharf/orchestrator/client';
import { CliError } from './cli-error.js';

/**
 * Where the swarm runs: the Temporal server and namespace, beating what Temporal's standard
 * configuration (`TEMPORAL_*`, a `TEMPORAL_PROFILE` of the config file) says.
 */
export interface ServerOptions {
  address?: string;
  namespace?: string;
}

/**
 * Connects to the server, runs `fn` with a client, closes the connection.
 *
 * @example
 * ```ts
 * await withClient({ address: 'temporal:7233' }, (wharf) => wharf.progress(workflowId));
 * ```
 */
export async function withClient<TResult>(
  options: ServerOptions,
  fn: (wharf: WharfClient) => Promise<TResult>,
): Promise<TResult> {
  const { connection, namespace } = await connectServer(options);
  try {
    return await fn(new WharfClient({ connection, namespace }));
  } finally {
    await connection.close();
  }
}

/**
 * A client connection to the cluster the options, else Temporal's standard configuration, name;
 * a bad setting is an `InvalidConfigError` (exit 2), a server that does not answer exit 4.
 *
 * @example
 * ```ts
 * const { connection, namespace } = await connectServer({ namespace: 'default' });
 * ```
 */
export async function connectServer(
  options: ServerOptions,
): Promise<{ connection: Connection; namespace: string }> {
  const temporal = loadTemporalConfig({
    ...(options.address === undefined ? {} : { address: options.address }),
    ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
  });
  const connection = await connectTemporal(temporal, { connectTimeoutMs: 3_000 }).catch((error: Error) => {
    throw new CliError('UNREACHABLE', `no Temporal server at ${temporal.summary}: ${error.message}`, {
      cause: error,
    });
  });
  return { connection, namespace: temporal.namespace };
}
