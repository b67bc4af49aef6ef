import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
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
   * Time to receive a request's headers, default 10 000 ms (at most `requestTimeoutMs`).
   * A slower client is answered 408 and its connection closed.
   */
  readonly headersTimeoutMs?: number;
  /**
   * Time to receive a whole request, headers and body, default 60 000 ms. A slower upload
   * (a client dripping bytes) is answered 408, its connection closed and nothing stored.
   * Raise it to accept large bodies over slow links.
   */
  readonly requestTimeoutMs?: number;
  /** A connection with no traffic either way for this long is closed; default 15 000 ms. */
  readonly idleTimeoutMs?: number;
}

/** Defaults of the {@link IntakeServerOptions} timeouts, in milliseconds. */
const defaultTimeouts = { headersTimeoutMs: 10_000, requestTimeoutMs: 60_000, idleTimeoutMs: 15_000 };

function timeoutOption(options: IntakeServerOptions, name: keyof typeof defaultTimeouts): number {
  const value = options[name] ?? defaultTimeouts[name];
  if (!Number.isSafeInteger(value) || value <= 0)
    throw new InvalidOutputEventError(name, 'must be a positive whole number of milliseconds');
  return value;
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
  const requestTimeout = timeoutOption(options, 'requestTimeoutMs');
  const headersTimeout = Math.min(timeoutOption(options, 'headersTimeoutMs'), requestTimeout);
  const idleTimeout = timeoutOption(options, 'idleTimeoutMs');
  const hostname = options.hostname ?? '127.0.0.1';
  const handler = createIntakeHandler(options);
  // Node checks the header and request deadlines on this interval (its default is 30 s).
  const connectionsCheckingInterval = Math.max(10, Math.min(1000, Math.floor(headersTimeout / 4)));
  const server = createServer({ requestTimeout, headersTimeout, connectionsCheckingInterval }, handler);
  // Without a listener node:http would send `100 Continue` before the intake could refuse.
  server.on('checkContinue', handler.checkContinue);
  server.setTimeout(idleTimeout);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, hostname, () => {
      const info = server.address() as AddressInfo;
      const host = info.family === 'IPv6' ? `[${info.address}]` : info.address;
      resolve({
        url: `http://${host}:${info.port}`,
        port: info.port,
        close: () =>
          new Promise<void>((done, fail) => {
            server.close((error) => (error ? fail(error) : done()));
            server.closeAllConnections();
          }),
      });
    });
  });
}
