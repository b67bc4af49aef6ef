import type { ServerResponse } from 'node:http';

/**
 * Writes a JSON answer on node:http exactly as the intake's Hono app does through
 * `@hono/node-server`, so clients cannot tell which path answered: without extra headers,
 * `Content-Type: application/json` and node's own `Content-Length` after its default headers;
 * with extra headers (a `Location`, a `Retry-After`), every header name in lower case and in
 * name order as `Headers` gives them, followed by `Content-Length`.
 *
 * @example
 * ```ts
 * writeJson(response, 201, JSON.stringify({ ref, record }), [['Location', `/v1/outputs/${ref.outId}`]]);
 * ```
 */
export function writeJson(
  response: ServerResponse,
  status: number,
  body: string,
  headers: readonly (readonly [name: string, value: string])[] = [],
): void {
  if (headers.length === 0) {
    response.statusCode = status;
    response.setHeader('Content-Type', 'application/json');
    response.end(body);
    return;
  }
  const named: [string, string][] = [['content-type', 'application/json']];
  for (const [name, value] of headers) named.push([name.toLowerCase(), value]);
  named.sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0));
  const record: Record<string, string | number> = {};
  for (const [name, value] of named) record[name] = value;
  record['Content-Length'] = Buffer.byteLength(body);
  response.writeHead(status, record);
  response.end(body);
}
