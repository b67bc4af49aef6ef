import { CodecError } from '@wharf/codec';
import type { CodecServer } from '@wharf/codec/server';
import { startDataPlaneCodecServer, temporalPayloadOwner } from '@wharf/orchestrator/node';
import { CliError } from '../cli-error.js';
import { cliKeyRing } from '../codec-keys.js';
import { openData } from '../open-data.js';
import type { CliIo } from '../output.js';
import { authOptions } from '../server-auth-options.js';

/** Options of {@link codecServerCommand}. */
export interface CodecServerCommandOptions {
  dataDir: string;
  host: string;
  port: number;
  /** Web UI origins allowed to call it from a browser. */
  origin: string[];
  /** A file holding the bearer token (else `WHARF_CODEC_TOKEN`). */
  tokenFile?: string;
  oidcIssuer?: string;
  oidcAudience?: string;
  oidcJwksUri?: string;
  /** The owner whose stored payloads it opens. Default `temporal`, the External Storage driver's. */
  owner?: string;
}

/**
 * `wharf codec-server`: the Codec Server of this data plane (`POST /decode`, `/encode`, also
 * under `/{namespace}/`): decrypts with `WHARF_CODEC_KEYS` / `WHARF_CODEC_KEYS_FILE`, opens the
 * External Storage references of the served owner from the data plane, and cuts big bodies for
 * display. Loopback only unless given a bearer token (`--token-file`, `WHARF_CODEC_TOKEN`) or an
 * OIDC issuer; CORS only for `--origin`. Logs who decoded what, by id, on stderr. Runs until
 * Ctrl-C (or `until`).
 */
export async function codecServerCommand(
  options: CodecServerCommandOptions,
  io: CliIo,
  until?: Promise<void>,
): Promise<void> {
  const keyRing = await cliKeyRing();
  if (keyRing === undefined)
    throw new CliError(
      'USAGE',
      'no keys: set WHARF_CODEC_KEYS or WHARF_CODEC_KEYS_FILE to the ring the workers encrypt with',
    );
  const auth = await authOptions(options);
  const data = await openData(options.dataDir);
  let server: CodecServer;
  try {
    server = await startDataPlaneCodecServer({
      store: data.store,
      keyRing,
      host: options.host,
      port: options.port,
      allowedOrigins: options.origin,
      ...(options.owner === undefined ? {} : { ownerId: options.owner }),
      ...(auth === undefined ? {} : { auth }),
      logger: {
        info: (message, meta) => io.err(`wharf codec-server: ${message} ${JSON.stringify(meta ?? {})}`),
        warn: (message, meta) => io.err(`wharf codec-server: ${message} ${JSON.stringify(meta ?? {})}`),
      },
    });
  } catch (error) {
    await data.close();
    if (CodecError.isInstance(error)) throw new CliError('USAGE', error.message, { cause: error });
    throw error;
  }
  io.out(
    [
      `Codec server for ${data.location.store} (owner ${options.owner ?? temporalPayloadOwner}, keys ${keyRing.keyIds.join(', ')}) at ${server.url}`,
      `  Web UI:  temporal server start-dev --ui-codec-endpoint ${server.url}  (or the UI's codec.endpoint)`,
      `  CLI:     temporal workflow show --codec-endpoint ${server.url} -w <workflowId>  (or TEMPORAL_CODEC_ENDPOINT)`,
      'Press Ctrl-C to stop.',
    ].join('\n'),
  );
  const stopSignal =
    until ??
    new Promise<void>((resolve) => {
      process.once('SIGINT', () => resolve());
      process.once('SIGTERM', () => resolve());
    });
  await stopSignal;
  await server.close();
  await data.close();
}
