import type { Connection } from '@temporalio/client';
import type { KeyRing } from '@wharf/codec';
import { connectTemporal, loadTemporalConfig, WharfClient } from '@wharf/orchestrator/client';
import { CliError } from './cli-error.js';
import { cliKeyRing } from './codec-keys.js';

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
  const { connection, namespace, keyRing } = await connectServer(options);
  try {
    return await fn(new WharfClient({ connection, namespace, keyRing }));
  } finally {
    await connection.close();
  }
}

/**
 * A client connection to the cluster the options, else Temporal's standard configuration, name,
 * and the payload encryption key ring (`WHARF_CODEC_KEYS` / `WHARF_CODEC_KEYS_FILE`, else
 * none) its clients use; a bad setting is an `InvalidConfigError` or a usage error (exit 2), a
 * server that does not answer exit 4.
 *
 * @example
 * ```ts
 * const { connection, namespace } = await connectServer({ namespace: 'default' });
 * ```
 */
export async function connectServer(
  options: ServerOptions,
): Promise<{ connection: Connection; namespace: string; keyRing: KeyRing | undefined }> {
  const keyRing = await cliKeyRing();
  const temporal = loadTemporalConfig({
    ...(options.address === undefined ? {} : { address: options.address }),
    ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
  });
  const connection = await connectTemporal(temporal, { connectTimeoutMs: 3_000 }).catch((error: Error) => {
    throw new CliError('UNREACHABLE', `no Temporal server at ${temporal.summary}: ${error.message}`, {
      cause: error,
    });
  });
  return { connection, namespace: temporal.namespace, keyRing };
}
