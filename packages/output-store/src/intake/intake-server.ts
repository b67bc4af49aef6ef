import { chmodSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { unixSocketUrl } from '../client/unix-socket-fetch.js';
import { InvalidOutputEventError } from '../errors.js';
import { createIntakeHandler } from './intake-handler.js';
import type { IntakeOptions } from './intake-options.js';

/**
 * Options of {@link createIntakeServer}: the intake's options (including
 * `maxConcurrentRequests`), where to listen, and how long a client may take.
 *
 * @example
 * ```ts
 * const options: IntakeServerOptions = { store, secret, port: 8787, requestTimeoutMs: 120_000 };
 * ```
 */
export interface IntakeServerOptions extends IntakeOptions {
  /** Default 0 (any free port). */
  readonly port?: number;
  /** Default 127.0.0.1. */
  readonly hostname?: string;
  /**
   * Also listen on this Unix socket (mode 0600, replacing a stale file): how sandboxed
   * processes without a network reach the intake (`http+unix://…`, see `OutputClient`).
   */
  readonly socketPath?: string;
  /**
   * Time to receive a request's headers, default 10 000 ms (at most `requestTimeoutMs`).
   * A slower client is answered 408 and its connection closed.
   */
  readonly headersTimeoutMs?: number;
  /**
   * A hard ceiling on the time to receive a whole request, headers and body; default none. A
   * slower request is answered 408 and its connection closed, nothing stored. Slow uploads are
   * cut by their pace instead (`minUploadBytesPerSecond` after `uploadGraceMs`), so a slow but
   * moving stream is not cut at any fixed time; set this only to bound every upload's length.
   */
  readonly requestTimeoutMs?: number;
  /** A connection with no traffic either way for this long is closed; default 15 000 ms. */
  readonly idleTimeoutMs?: number;
}

/**
 * Defaults of the {@link IntakeServerOptions} timeouts, in milliseconds; 0: no whole-request
 * deadline (node:http's "none").
 */
const defaultTimeouts = { headersTimeoutMs: 10_000, requestTimeoutMs: 0, idleTimeoutMs: 15_000 };

function timeoutOption(options: IntakeServerOptions, name: keyof typeof defaultTimeouts): number {
  const value = options[name];
  if (value === undefined) return defaultTimeouts[name];
  if (!Number.isSafeInteger(value) || value <= 0)
    throw new InvalidOutputEventError(name, 'must be a positive whole number of milliseconds');
  return value;
}

/**
 * The node:http server timeouts of these options: `requestTimeout` 0 (none) unless
 * `requestTimeoutMs` is given, the headers deadline at most that, the idle timeout, and how
 * often node:http checks the deadlines.
 *
 * @example
 * ```ts
 * nodeServerTimeouts({ store, secret }).requestTimeout; // 0: uploads are cut by their pace
 * ```
 */
export function nodeServerTimeouts(options: IntakeServerOptions): {
  requestTimeout: number;
  headersTimeout: number;
  idleTimeout: number;
  connectionsCheckingInterval: number;
} {
  const requestTimeout = timeoutOption(options, 'requestTimeoutMs');
  const headersOption = timeoutOption(options, 'headersTimeoutMs');
  const headersTimeout = requestTimeout === 0 ? headersOption : Math.min(headersOption, requestTimeout);
  const idleTimeout = timeoutOption(options, 'idleTimeoutMs');
  // Node checks the header and request deadlines on this interval (its default is 30 s).
  const connectionsCheckingInterval = Math.max(10, Math.min(1000, Math.floor(headersTimeout / 4)));
  return { requestTimeout, headersTimeout, idleTimeout, connectionsCheckingInterval };
}

/**
 * A running intake server.
 *
 * @example
 * ```ts
 * const server = await createIntakeServer({ store, secret });
 * console.log(server.url); // http://127.0.0.1:40123
 * await server.close();
 * ```
 */
export interface IntakeServer {
  readonly url: string;
  readonly port: number;
  /** The Unix socket it also listens on (`socketPath`), if any. */
  readonly socketPath?: string;
  /** `http+unix://…` for {@link IntakeServer.socketPath}, if any. */
  readonly socketUrl?: string;
  close(): Promise<void>;
}

/**
 * Starts the intake HTTP API (see `createIntakeHandler`) on Node's HTTP server, with its
 * timeouts, and with `Expect: 100-continue` answered by the intake itself (`100 Continue` only
 * for a request it will read).
 *
 * @example
 * ```ts
 * const server = await createIntakeServer({ store: new SqliteOutputStore({ path: 'outputs.db' }), secret });
 * ```
 */
export async function createIntakeServer(options: IntakeServerOptions): Promise<IntakeServer> {
  const { idleTimeout, ...timeouts } = nodeServerTimeouts(options);
  const hostname = options.hostname ?? '127.0.0.1';
  const handler = createIntakeHandler(options);
  const serve = () => {
    const server = createServer(timeouts, handler);
    // Without a listener node:http would send `100 Continue` before the intake could refuse.
    server.on('checkContinue', handler.checkContinue);
    server.setTimeout(idleTimeout);
    return server;
  };
  const closeServer = (server: Server) =>
    new Promise<void>((done, fail) => {
      server.close((error) => (error ? fail(error) : done()));
      server.closeAllConnections();
    });
  const server = serve();
  const info = await new Promise<AddressInfo>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, hostname, () => resolve(server.address() as AddressInfo));
  });
  const host = info.family === 'IPv6' ? `[${info.address}]` : info.address;
  const socketPath = options.socketPath;
  let socketServer: Server | undefined;
  if (socketPath !== undefined) {
    socketServer = serve();
    const listening = socketServer;
    rmSync(socketPath, { force: true });
    try {
      await new Promise<void>((resolve, reject) => {
        listening.once('error', reject);
        listening.listen(socketPath, resolve);
      });
      chmodSync(socketPath, 0o600);
    } catch (error) {
      await closeServer(server);
      throw error;
    }
  }
  return {
    url: `http://${host}:${info.port}`,
    port: info.port,
    ...(socketPath === undefined ? {} : { socketPath, socketUrl: unixSocketUrl(socketPath) }),
    close: async () => {
      await Promise.all([
        closeServer(server),
        socketServer === undefined ? undefined : closeServer(socketServer),
      ]);
    },
  };
}
