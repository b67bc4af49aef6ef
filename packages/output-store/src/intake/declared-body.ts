import type { IncomingMessage } from 'node:http';

/**
 * Reads a request body whose length its `Content-Length` declared into one exact-size buffer.
 * node:http ends the body after that many bytes, so nothing more can arrive; a body cut short
 * (the client closed the connection, or the server's request timeout destroyed it) rejects.
 * The listeners stay on the request, which is done with once this settles: removing them
 * cost more than the request keeping them. (node:http raises no `error` for an aborted
 * request without an `error` listener; `close` tells of it.) When `cut` rejects first (the
 * body fell below the intake's minimum pace), so does this, with its error.
 *
 * @example
 * ```ts
 * const bytes = await readDeclaredBody(request, Number(request.headers['content-length']));
 * ```
 */
export function readDeclaredBody(
  request: IncomingMessage,
  declaredBytes: number,
  cut?: Promise<never>,
): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    // From Node's buffer pool, unfilled (a fresh Uint8Array of this size costs several times
    // as much): every byte is written before anyone reads it, since a body that comes short
    // rejects, and readers go by the view's offset and length, as with any pooled Buffer.
    const bytes: Uint8Array = Buffer.allocUnsafe(declaredBytes);
    let received = 0;
    let settled = false;
    const fail = (reason: string) => {
      if (settled) return;
      settled = true;
      reject(new Error(reason));
    };
    cut?.catch((error: unknown) => {
      if (settled) return;
      settled = true;
      reject(error);
    });
    request.on('data', (chunk: Buffer) => {
      if (received + chunk.byteLength > declaredBytes) {
        fail('request body longer than its Content-Length');
        return;
      }
      bytes.set(chunk, received);
      received += chunk.byteLength;
    });
    request.on('end', () => {
      if (received !== declaredBytes) fail('request body shorter than its Content-Length');
      if (settled) return;
      settled = true;
      resolve(bytes);
    });
    request.on('close', () => fail('request closed before its body ended'));
  });
}
