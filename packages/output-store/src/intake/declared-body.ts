import type { IncomingMessage } from 'node:http';

/**
 * Reads a request body whose length its `Content-Length` declared into one exact-size buffer.
 * node:http ends the body after that many bytes, so nothing more can arrive; a body cut short
 * (the client closed the connection, or the server's request timeout destroyed it) rejects.
 *
 * @example
 * ```ts
 * const bytes = await readDeclaredBody(request, Number(request.headers['content-length']));
 * ```
 */
export function readDeclaredBody(request: IncomingMessage, declaredBytes: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const bytes = new Uint8Array(declaredBytes);
    let received = 0;
    const onData = (chunk: Buffer) => {
      if (received + chunk.byteLength > declaredBytes) {
        finish(new Error('request body longer than its Content-Length'));
        return;
      }
      bytes.set(chunk, received);
      received += chunk.byteLength;
    };
    const onEnd = () =>
      finish(
        received === declaredBytes ? undefined : new Error('request body shorter than its Content-Length'),
      );
    const onError = (error: Error) => finish(error);
    const onClose = () => finish(new Error('request closed before its body ended'));
    const finish = (error: Error | undefined) => {
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', onError);
      request.off('close', onClose);
      if (error) reject(error);
      else resolve(bytes);
    };
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', onError);
    request.on('close', onClose);
  });
}
