import type { ServerResponse } from 'node:http';

/**
 * Writes a JSON answer: `Content-Type: application/json`, the extra headers (a `Location`, a
 * `Retry-After`, a `Connection: close`…) and the body's `Content-Length`.
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
  const record: Record<string, string | number> = { 'Content-Type': 'application/json' };
  for (const [name, value] of headers) record[name] = value;
  record['Content-Length'] = Buffer.byteLength(body);
  response.writeHead(status, record);
  response.end(body);
}
