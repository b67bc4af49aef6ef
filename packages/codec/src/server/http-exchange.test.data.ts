import { request } from 'node:http';

/** An answer of {@link exchange}: status, headers and body text. */
export interface Exchanged {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/**
 * One HTTP request over node:http (which, unlike fetch, sends any `Origin` and `Host` given).
 *
 * @example
 * ```ts
 * const { status } = await exchange(`${server.url}/decode`, { method: 'POST', body: '{"payloads":[]}' });
 * ```
 */
export function exchange(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<Exchanged> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      {
        method: options.method ?? 'POST',
        headers: { 'Content-Type': 'application/json', ...options.headers },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(options.body);
  });
}
