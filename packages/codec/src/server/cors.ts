import type { IncomingMessage } from 'node:http';

/** The headers a browser may send to the codec server (the Web UI sends these). */
export const corsAllowedHeaders = 'X-Namespace, Content-Type, Authorization';

/**
 * What CORS allows a request: `none` for one without an `Origin` (the CLI, curl), `allowed`
 * with the headers to answer for one from a configured UI origin, `refused` for any other
 * origin (answered 403 with no CORS headers, so the browser shows its page nothing).
 *
 * @example
 * ```ts
 * const cors = corsFor(request, ['http://localhost:8233']);
 * if (cors.kind === 'refused') return answer(403);
 * ```
 */
export function corsFor(
  request: IncomingMessage,
  allowedOrigins: readonly string[],
): { kind: 'none' } | { kind: 'refused'; origin: string } | { kind: 'allowed'; headers: [string, string][] } {
  const origin = request.headers.origin;
  if (origin === undefined) return { kind: 'none' };
  if (!allowedOrigins.includes(origin)) return { kind: 'refused', origin };
  const headers: [string, string][] = [
    ['Access-Control-Allow-Origin', origin],
    ['Access-Control-Allow-Credentials', 'true'],
    ['Vary', 'Origin'],
  ];
  if (request.method === 'OPTIONS')
    headers.push(
      ['Access-Control-Allow-Methods', 'POST, OPTIONS'],
      ['Access-Control-Allow-Headers', corsAllowedHeaders],
      ['Access-Control-Max-Age', '600'],
    );
  return { kind: 'allowed', headers };
}
