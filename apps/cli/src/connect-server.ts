import { connect } from 'node:net';
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
  const connection = await connectTemporal(temporal, { connectTimeoutMs: 3_000 }).catch(
    async (error: Error) => {
      // Something answers on the port: the handshake (TLS, credentials) failed, not the server.
      if (await portAnswers(temporal.address))
        throw new CliError(
          'USAGE',
          `a server answers at ${temporal.summary}, but the connection failed: ${error.message} (does it expect TLS ${temporal.connection.tls ? 'off' : 'on'}, another certificate or an API key? TEMPORAL_TLS, TEMPORAL_TLS_*, TEMPORAL_API_KEY)`,
          { cause: error },
        );
      throw new CliError('UNREACHABLE', `no Temporal server at ${temporal.summary}: ${error.message}`, {
        cause: error,
      });
    },
  );
  return { connection, namespace: temporal.namespace, keyRing };
}

/** True when a TCP connection to `address` (host:port) opens within a second. */
function portAnswers(address: string): Promise<boolean> {
  const at = address.lastIndexOf(':');
  const host = address.slice(0, at).replace(/^\[|\]$/g, '');
  const port = Number(address.slice(at + 1));
  if (at < 0 || !Number.isInteger(port)) return Promise.resolve(false);
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: 1_000 });
    const done = (answered: boolean) => {
      socket.destroy();
      resolve(answered);
    };
    socket.once('connect', () => done(true));
    socket.once('timeout', () => done(false));
    socket.once('error', () => done(false));
  });
}
