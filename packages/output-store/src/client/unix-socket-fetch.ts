import { request } from 'node:http';
import { Readable } from 'node:stream';
import { OutputStoreError } from '../output-store-error.js';

/** The scheme of an intake reached over a Unix socket: `http+unix://<socket path, percent-encoded>`. */
export const UNIX_SOCKET_SCHEME = 'http+unix:';

/**
 * The URL of an intake listening on a Unix socket, as `WHARF_OUTPUT_URL` carries it.
 *
 * @example
 * ```ts
 * unixSocketUrl('/run/wharf/intake.sock'); // 'http+unix://%2Frun%2Fwharf%2Fintake.sock'
 * ```
 */
export function unixSocketUrl(socketPath: string): string {
  return `${UNIX_SOCKET_SCHEME}//${encodeURIComponent(socketPath)}`;
}

/**
 * The socket path of an `http+unix://` URL, or undefined for any other URL.
 *
 * @example
 * ```ts
 * unixSocketPath('http+unix://%2Frun%2Fwharf%2Fintake.sock'); // '/run/wharf/intake.sock'
 * unixSocketPath('http://127.0.0.1:8787'); // undefined
 * ```
 */
export function unixSocketPath(url: string): string | undefined {
  if (!url.startsWith(`${UNIX_SOCKET_SCHEME}//`)) return undefined;
  const encoded = url.slice(UNIX_SOCKET_SCHEME.length + 2).replace(/\/+$/, '');
  const path = decodeURIComponent(encoded);
  if (!path.startsWith('/')) {
    throw new OutputStoreError(
      'INVALID_EVENT',
      `${url}: the socket path must be absolute and percent-encoded`,
    );
  }
  return path;
}

/**
 * A `fetch` that sends every request over one Unix socket (with `node:http`, whatever host the
 * URL names): what `OutputClient` uses for an `http+unix://` intake, e.g. inside a sandbox
 * without a network. Bodies may be strings, bytes or streams; the response streams.
 *
 * @example
 * ```ts
 * const fetchOverSocket = unixSocketFetch('/run/wharf/intake.sock');
 * const response = await fetchOverSocket('http://intake/v1/outputs/abc', { headers: { authorization } });
 * ```
 */
export function unixSocketFetch(socketPath: string): typeof fetch {
  return (async (input: string | URL | Request, init: RequestInit = {}) => {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    const headers = new Headers(init.headers);
    const body = init.body;
    return new Promise<Response>((resolve, reject) => {
      const outgoing = request(
        {
          socketPath,
          method: init.method ?? 'GET',
          path: `${url.pathname}${url.search}`,
          headers: { ...Object.fromEntries(headers), host: 'localhost' },
          ...(init.signal ? { signal: init.signal } : {}),
        },
        (incoming) => {
          const responseHeaders = new Headers();
          for (const [name, value] of Object.entries(incoming.headers)) {
            for (const item of Array.isArray(value) ? value : [value ?? ''])
              responseHeaders.append(name, item);
          }
          const status = incoming.statusCode ?? 500;
          const empty = status === 204 || status === 304 || init.method === 'HEAD';
          if (empty) incoming.resume();
          resolve(
            new Response(empty ? null : (Readable.toWeb(incoming) as ReadableStream<Uint8Array>), {
              status,
              statusText: incoming.statusMessage ?? '',
              headers: responseHeaders,
            }),
          );
        },
      );
      outgoing.once('error', reject);
      if (body === undefined || body === null) {
        outgoing.end();
      } else if (typeof body === 'string' || body instanceof Uint8Array) {
        outgoing.end(body);
      } else if (body instanceof ReadableStream) {
        Readable.fromWeb(body as import('node:stream/web').ReadableStream<Uint8Array>)
          .once('error', (error) => outgoing.destroy(error))
          .pipe(outgoing);
      } else {
        outgoing.destroy();
        reject(new OutputStoreError('INVALID_EVENT', 'unixSocketFetch: unsupported body type'));
      }
    });
  }) as typeof fetch;
}
