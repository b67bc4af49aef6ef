import { openDataDir } from '@wharf/orchestrator/data-dir';
import type { KeyRing } from '@wharf/orchestrator/node';
import { loadKeyRing, startDataPlaneCodecServer, temporalPayloadOwner } from '@wharf/orchestrator/node';
import { type Logger, pino } from 'pino';
import { type CodecServerConfig, codecServiceAuth } from './codec-config.js';
import { dataPlaneFailure } from './data-plane-failure.js';
import { WorkerConfigError } from './worker-config-error.js';

/** A running codec server process: its URL, and how to stop it. */
export interface RunningCodecService {
  /** Give it to the Web UI (`TEMPORAL_CODEC_ENDPOINT`) and `temporal … --codec-endpoint`. */
  readonly url: string;
  /** Stops taking requests and closes the data plane. */
  close(): Promise<void>;
}

const keyVariables = ['WHARF_CODEC_KEYS', 'WHARF_CODEC_KEYS_FILE'];

/**
 * The codec server of the workers' data plane, as the compose file's and `wharf cluster up`'s
 * `wharf-codec` service runs it: decrypts with the ring of `WHARF_CODEC_KEYS` /
 * `WHARF_CODEC_KEYS_FILE` (the workers'), opens the External Storage payloads they offloaded to
 * `WHARF_STORE` / `WHARF_BLOBS`, answers CORS for `WHARF_CODEC_ORIGINS` only, takes a request
 * with `WHARF_CODEC_TOKEN` or an access token of `WHARF_CODEC_OIDC_ISSUER` (when either is set),
 * and logs who decoded what by id (never a payload). No keys, a bad ring, a non-loopback host
 * without a token or an issuer, or a data plane that cannot be opened is a
 * {@link WorkerConfigError}.
 *
 * @example
 * ```ts
 * const codec = await startCodecService(loadCodecServerConfig(process.env), process.env);
 * console.log(codec.url); // http://127.0.0.1:8234
 * ```
 */
export async function startCodecService(
  config: CodecServerConfig,
  env: Readonly<Record<string, string | undefined>>,
  logger: Logger = pino({ level: config.LOG_LEVEL }),
): Promise<RunningCodecService> {
  let keyRing: KeyRing | undefined;
  try {
    keyRing = await loadKeyRing({ env });
  } catch (error) {
    // The ring's errors name the variable or the file and a key id, never a key.
    throw new WorkerConfigError('INVALID_ENV', (error as Error).message, {
      cause: error,
      variables: keyVariables,
    });
  }
  if (keyRing === undefined)
    throw new WorkerConfigError(
      'INVALID_ENV',
      'no keys: set WHARF_CODEC_KEYS or WHARF_CODEC_KEYS_FILE to the ring the workers encrypt with',
      { variables: keyVariables },
    );
  const data = await openDataDir(config.WHARF_DATA_DIR, {
    ...(config.WHARF_STORE === undefined ? {} : { store: config.WHARF_STORE }),
    ...(config.WHARF_BLOBS === undefined ? {} : { blobs: config.WHARF_BLOBS }),
  }).catch((error: unknown) => {
    throw dataPlaneFailure(error) ?? error;
  });
  const owner = config.WHARF_CODEC_OWNER ?? temporalPayloadOwner;
  const auth = codecServiceAuth(config);
  let server: Awaited<ReturnType<typeof startDataPlaneCodecServer>>;
  try {
    server = await startDataPlaneCodecServer({
      store: data.store,
      keyRing,
      ownerId: owner,
      host: config.WHARF_CODEC_HOST,
      port: config.WHARF_CODEC_PORT,
      allowedOrigins: config.WHARF_CODEC_ORIGINS,
      ...(auth === undefined ? {} : { auth }),
      logger: {
        info: (message, meta) => logger.info(meta ?? {}, message),
        warn: (message, meta) => logger.warn(meta ?? {}, message),
      },
    });
  } catch (error) {
    await data.close();
    const code = (error as { code?: unknown }).code;
    // An unsafe bind or a bad option (origin, token) is the environment's fault: name it.
    if (code === 'CODEC_UNSAFE_BIND' || code === 'CODEC_INVALID_OPTION')
      throw new WorkerConfigError('INVALID_ENV', (error as Error).message, {
        cause: error,
        variables: [
          'WHARF_CODEC_HOST',
          'WHARF_CODEC_ORIGINS',
          'WHARF_CODEC_TOKEN',
          'WHARF_CODEC_OIDC_ISSUER',
        ],
      });
    throw error;
  }
  logger.info(
    {
      url: server.url,
      store: data.location.store,
      blobs: data.location.blobs,
      owner,
      origins: config.WHARF_CODEC_ORIGINS,
      auth: authSummary(auth),
      // Key ids only: never a key.
      keys: keyRing.keyIds,
    },
    'codec-server-start',
  );
  return {
    url: server.url,
    async close() {
      await server.close();
      await data.close();
      logger.info('codec-server-end');
    },
  };
}

/** What the start line says of the auth: its kinds and the issuer, never the token. */
function authSummary(auth: ReturnType<typeof codecServiceAuth>): string {
  if (auth === undefined) return 'none (loopback only)';
  return [
    ...(auth.bearerToken === undefined ? [] : ['bearer token']),
    ...(auth.oidc === undefined ? [] : [`oidc ${auth.oidc.issuer}`]),
  ].join(' or ');
}
