import type { IncomingMessage } from 'node:http';

/** A request body read whole, or too large (its rest read and dropped). */
export type BodyOutcome = { kind: 'read'; bytes: Buffer } | { kind: 'too-large' };

/** How long a body over the limit is still read and dropped, so its client reads the 413 rather than a reset. */
const dropForMs = 2_000;

/**
 * Reads a request body of at most `maxBytes` into memory. A body declared larger
 * (`Content-Length`) or growing larger is not kept: what the client still sends is read and
 * dropped for up to 2 s (then the caller answers with `Connection: close`), so it reads its 413
 * instead of a reset. Rejects with the signal's reason when `signal` aborts first.
 *
 * @example
 * ```ts
 * const body = await readLimitedBody(request, { maxBytes: 4 * 1024 * 1024, signal });
 * if (body.kind === 'too-large') answer(413);
 * ```
 */
export function readLimitedBody(
  request: IncomingMessage,
  options: { maxBytes: number; signal: AbortSignal },
): Promise<BodyOutcome> {
  return new Promise((resolve, reject) => {
    const declared = Number(request.headers['content-length'] ?? Number.NaN);
    const chunks: Buffer[] = [];
    let total = 0;
    let tooLarge = Number.isFinite(declared) && declared > options.maxBytes;
    let timer: NodeJS.Timeout | undefined;
    const finish = (outcome: BodyOutcome | Error) => {
      clearTimeout(timer);
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', onError);
      options.signal.removeEventListener('abort', onAbort);
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    };
    const giveUp = () => {
      tooLarge = true;
      chunks.length = 0;
      timer ??= setTimeout(() => {
        request.pause();
        finish({ kind: 'too-large' });
      }, dropForMs);
    };
    const onData = (chunk: Buffer) => {
      if (tooLarge) return;
      total += chunk.byteLength;
      if (total > options.maxBytes) giveUp();
      else chunks.push(chunk);
    };
    const onEnd = () =>
      finish(tooLarge ? { kind: 'too-large' } : { kind: 'read', bytes: Buffer.concat(chunks, total) });
    const onError = (error: Error) => finish(tooLarge ? { kind: 'too-large' } : error);
    const onAbort = () =>
      finish(options.signal.reason instanceof Error ? options.signal.reason : new Error('aborted'));
    if (options.signal.aborted) return onAbort();
    if (tooLarge) giveUp();
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', onError);
    options.signal.addEventListener('abort', onAbort, { once: true });
  });
}
