import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { UnsafeBindError } from '../errors.js';
import { createCodecHandler } from './codec-handler.js';
import { type CodecHandlerOptions, isAuthenticated, isLoopbackHost } from './codec-server-options.js';

/** Options of {@link startCodecServer}: where to listen, and the handler's options. */
export interface CodecServerOptions extends CodecHandlerOptions {
  /** Address to bind. Default `127.0.0.1`; anything but loopback needs `auth`. */
  host?: string;
  /** Port; default 0 (any free port). */
  port?: number;
}

/**
 * A running codec server.
 *
 * @example
 * ```ts
 * const server: CodecServer = await startCodecServer({ keyRing });
 * console.log(server.url); // http://127.0.0.1:40123
 * await server.close();
 * ```
 */
export interface CodecServer {
  /** Base URL: give it to the Web UI (`--ui-codec-endpoint`) and `temporal … --codec-endpoint`. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  close(): Promise<void>;
}

/**
 * Starts the codec server of {@link createCodecHandler} on node:http. Without `auth` it refuses
 * to bind anything but loopback ({@link UnsafeBindError}), since whoever reaches it can read
 * every payload the key ring opens.
 *
 * @example
 * ```ts
 * const server = await startCodecServer({
 *   host: '0.0.0.0',
 *   port: 8234,
 *   keyRing,
 *   auth: { oidc: { issuer: 'https://login.example.com/' } },
 *   allowedOrigins: ['https://temporal.example.com'],
 * });
 * ```
 */
export async function startCodecServer(options: CodecServerOptions): Promise<CodecServer> {
  const host = options.host ?? '127.0.0.1';
  if (!isAuthenticated(options) && !isLoopbackHost(host)) throw new UnsafeBindError(host);
  const server = createServer(createCodecHandler(options));
  server.headersTimeout = 10_000;
  server.requestTimeout = (options.requestTimeoutMs ?? 30_000) + 5_000;
  await listen(server, host, options.port ?? 0);
  const { port } = server.address() as AddressInfo;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}`,
    host,
    port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
