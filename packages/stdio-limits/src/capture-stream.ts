import type { Readable } from 'node:stream';
import type { TruncationStrategy } from './cut-marker.js';
import { DEFAULT_LIMITS } from './limits.js';
import { StreamAccumulator, type StreamCapture, type StreamSpillOptions } from './stream-accumulator.js';

/** Options of {@link captureStream}. */
export interface CaptureStreamOptions {
  /** Bytes retained in memory (default 1 MiB). */
  maxBytes?: number;
  /** Which part to keep when over the limit (default `tail`). */
  strategy?: TruncationStrategy;
  /** Tee the full stream to a file once it exceeds `threshold` bytes. */
  spill?: StreamSpillOptions;
  /** Called with the bytes read so far, after each chunk. */
  onBytes?: (totalBytes: number) => void;
}

/** A running pump from a readable into an accumulator. */
export interface Pump {
  /** Resolves at end of stream, on error, or after {@link Pump.stop}. */
  done: Promise<void>;
  /** Stops reading and destroys the readable (used when a drain timeout expires). */
  stop(): void;
  /** True once the readable ended by itself. */
  readonly ended: boolean;
}

/**
 * Reads `readable` to the end into `accumulator`. Reading never stops at a cap; it only pauses
 * while a spill file catches up.
 *
 * @example
 * ```ts
 * const pump = pumpInto(child.stdout, new StreamAccumulator({ maxBytes: 1024, strategy: 'tail' }));
 * await pump.done;
 * ```
 */
export function pumpInto(
  readable: Readable,
  accumulator: StreamAccumulator,
  onBytes?: (total: number) => void,
): Pump {
  let ended = false;
  let settle: () => void = () => undefined;
  const done = new Promise<void>((resolve) => {
    settle = resolve;
  });
  const finish = () => {
    readable.off('data', onData);
    settle();
  };
  const onData = (chunk: Buffer | string) => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    if (!accumulator.write(bytes)) {
      readable.pause();
      void accumulator.waitForDrain().then(() => readable.resume());
    }
    onBytes?.(accumulator.totalBytes);
  };
  readable.on('data', onData);
  readable.once('end', () => {
    ended = true;
    finish();
  });
  readable.once('close', finish);
  readable.once('error', finish);
  return {
    done,
    stop: () => {
      readable.destroy();
      finish();
    },
    get ended() {
      return ended;
    },
  };
}

/**
 * Captures any readable under a byte limit in fixed memory, optionally spilling the full stream
 * to disk. Resolves when the stream ends.
 *
 * @example
 * ```ts
 * import { createReadStream } from 'node:fs';
 * const capture = await captureStream(createReadStream('build.log'), { maxBytes: 4096, strategy: 'both' });
 * console.log(capture.text, capture.omittedBytes);
 * ```
 */
export async function captureStream(
  readable: Readable,
  options: CaptureStreamOptions = {},
): Promise<StreamCapture> {
  const accumulator = new StreamAccumulator({
    maxBytes: options.maxBytes ?? DEFAULT_LIMITS.max_stdout_bytes,
    strategy: options.strategy ?? DEFAULT_LIMITS.truncation_strategy,
    spill: options.spill,
  });
  await pumpInto(readable, accumulator, options.onBytes).done;
  return accumulator.finish();
}
