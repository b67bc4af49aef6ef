import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { createIntakeApp, type IntakeAppOptions } from './intake-app.js';

/**
 * Options of {@link createIntakeServer}: the app's options plus where to listen.
 *
 * @example
 * ```ts
 * const options: IntakeServerOptions = { store, secret, port: 8787 };
 * ```
 */
export interface IntakeServerOptions extends IntakeAppOptions {
  /** Default 0 (any free port). */
  readonly port?: number;
  /** Default 127.0.0.1. */
  readonly hostname?: string;
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
 * Starts the intake HTTP API (see {@link createIntakeApp}) on Node's HTTP server via Hono.
 *
 * @example
 * ```ts
 * const server = await createIntakeServer({ store: new SqliteOutputStore({ path: 'outputs.db' }), secret });
 * ```
 */
export async function createIntakeServer(options: IntakeServerOptions): Promise<IntakeServer> {
  const app = createIntakeApp(options);
  const hostname = options.hostname ?? '127.0.0.1';
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, port: options.port ?? 0, hostname }, (info: AddressInfo) => {
      const host = info.family === 'IPv6' ? `[${info.address}]` : info.address;
      resolve({
        url: `http://${host}:${info.port}`,
        port: info.port,
        close: () =>
          new Promise<void>((done, fail) => {
            server.close((error) => (error ? fail(error) : done()));
            if ('closeAllConnections' in server) server.closeAllConnections();
          }),
      });
    });
    server.once('error', reject);
  });
}
