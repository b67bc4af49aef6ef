import type { IncomingMessage } from 'node:http';
import { UploadTimeoutError } from '../errors.js';

/**
 * The minimum pace of an upload's body: after `graceMs`, every `windowMs` must bring at least
 * `minBytesPerSecond × windowMs / 1000` bytes. `minBytesPerSecond: 0` turns the check off.
 *
 * @example
 * ```ts
 * const pace: UploadPaceOptions = { graceMs: 10_000, windowMs: 10_000, minBytesPerSecond: 128 };
 * ```
 */
export interface UploadPaceOptions {
  readonly graceMs: number;
  readonly windowMs: number;
  readonly minBytesPerSecond: number;
}

/**
 * A watch over one request's body (see {@link watchUpload}): `cut` rejects with an
 * {@link UploadTimeoutError} once the body falls below the minimum pace, and `timedOut` then
 * holds that error.
 *
 * @example
 * ```ts
 * const watch: UploadWatch = watchUpload(request, pace);
 * try { await Promise.race([iterator.next(), watch.cut]); } finally { watch.stop(); }
 * ```
 */
export interface UploadWatch {
  readonly cut: Promise<never>;
  readonly timedOut: UploadTimeoutError | undefined;
  /** Ends the watch (the body was read, or the request is answered); idempotent. */
  stop(): void;
}

/**
 * Watches a request's body from now on: bytes are counted as they reach the connection, so a
 * slow but moving stream goes on for as long as it keeps the pace, while a stalled or trickling
 * one is cut after the grace period and one window. A window in which the intake itself held
 * the body back (bytes are waiting in the request's buffer: the store is busy writing) does
 * not count against the client. A watch ends by itself when the body has arrived.
 *
 * @example
 * ```ts
 * const watch = watchUpload(request, { graceMs: 10_000, windowMs: 10_000, minBytesPerSecond: 128 });
 * watch.cut.catch(() => request.socket.destroy());
 * ```
 */
export function watchUpload(request: IncomingMessage, pace: UploadPaceOptions): UploadWatch {
  let reject!: (error: UploadTimeoutError) => void;
  const cut = new Promise<never>((_, fail) => {
    reject = fail;
  });
  // Nobody may be racing it when it fires (the body was already handed over).
  cut.catch(() => undefined);
  let timedOut: UploadTimeoutError | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const socket = request.socket;
  let mark = 0;
  const stop = () => {
    clearTimeout(timer);
    timer = undefined;
    request.off('end', stop);
    request.off('close', stop);
  };
  const check = () => {
    if (request.complete) return stop();
    const received = socket.bytesRead - mark;
    mark = socket.bytesRead;
    const needed = (pace.minBytesPerSecond * pace.windowMs) / 1000;
    if (received >= needed || request.readableLength > 0) {
      timer = setTimeout(check, pace.windowMs).unref();
      return;
    }
    stop();
    const rate = Math.round((received * 1000) / pace.windowMs);
    timedOut = new UploadTimeoutError(
      `the upload was cut: its body arrived at ${rate} bytes/s over the last ${pace.windowMs} ms, ` +
        `below the intake's minimum of ${pace.minBytesPerSecond} bytes/s (minUploadBytesPerSecond)`,
    );
    reject(timedOut);
  };
  if (pace.minBytesPerSecond > 0 && !request.complete) {
    request.once('end', stop);
    request.once('close', stop);
    timer = setTimeout(() => {
      // The grace period is over: the first window starts now.
      mark = socket.bytesRead;
      timer = setTimeout(check, pace.windowMs).unref();
    }, pace.graceMs).unref();
  }
  return {
    cut,
    get timedOut() {
      return timedOut;
    },
    stop,
  };
}
