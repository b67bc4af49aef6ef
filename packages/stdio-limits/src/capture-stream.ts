import type { Readable } from 'node:stream';
import type { TruncationStrategy } from './cut-marker.js';
import { DEFAULT_LIMITS } from './limits.js';
import { StreamAccumulator, type StreamCapture, type StreamSpillOptions } from './stream-accumulator.js';
import { canStopReading, handOver, type ReaderRun, stopReading, streamReader } from './stream-reader.js';
import type { StreamReaderBinary } from './stream-reader-build.js';

/**
 * Bytes a stream is read in Node before the rest may go to the stream reader: outputs up to
 * this size, the common case, cost no extra process and are hashed as they are read.
 */
export const HANDOVER_BYTES = 16 * 1024 * 1024;

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
 * while a spill file catches up. With `handOver` (a child process's stdout or stderr), a stream
 * that passes {@link HANDOVER_BYTES} is read from there on by the stream reader, a small
 * compiled helper doing blocking reads outside Node's event loop, where the machine has it.
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
  options: { handOver?: boolean } = {},
): Pump {
  let ended = false;
  let reader: ReaderRun | undefined;
  let handingOver = false;
  let triedHandOver = false;
  let settle: () => void = () => undefined;
  let fail: (error: unknown) => void = () => undefined;
  const done = new Promise<void>((resolve, reject) => {
    settle = resolve;
    fail = reject;
  });
  const finish = () => {
    readable.off('data', onData);
    if (!handingOver) settle();
  };
  /** Hands the rest of the stream to the stream reader; false when the accumulator cannot. */
  const startReader = (binary: StreamReaderBinary): boolean => {
    if (!canStopReading(readable)) return false;
    const terms = accumulator.handOverTerms(binary);
    if (terms === undefined) return false;
    stopReading(readable);
    let run: ReaderRun;
    try {
      run = handOver(readable, {
        ...terms,
        onBytes: (bytes: number) => {
          accumulator.readerBytes = bytes;
          onBytes?.(accumulator.totalBytes);
        },
      });
    } catch {
      // Not started (no process was made): Node reads on, and the spill stays Node's.
      accumulator.absorb({
        totalBytes: 0,
        newlines: 0,
        lastByte: -1,
        tail: Buffer.alloc(0),
        ...(terms.spill ? { spill: { stored: 0, dropped: 0 } } : {}),
      });
      readable.resume();
      return false;
    }
    handingOver = true;
    readable.off('data', onData);
    reader = run;
    run.done
      .then((segment) => {
        accumulator.absorb(segment);
        ended = run.ended;
        onBytes?.(accumulator.totalBytes);
        settle();
      })
      .catch(fail);
    return true;
  };
  const onData = (chunk: Buffer | string) => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    const ready = accumulator.write(bytes);
    onBytes?.(accumulator.totalBytes);
    if (ready && options.handOver === true && !triedHandOver && accumulator.totalBytes >= HANDOVER_BYTES) {
      triedHandOver = true;
      const binary = streamReader();
      if (binary !== undefined && startReader(binary)) return;
    }
    if (!ready) {
      readable.pause();
      void accumulator.waitForDrain().then(() => readable.resume());
    }
  };
  readable.on('data', onData);
  readable.once('end', () => {
    ended = true;
    finish();
  });
  readable.once('close', finish);
  readable.once('error', finish);
  // A stream may have ended before it was handed over: an empty pipe whose writer exited while
  // it travelled from a spawn server emits 'end' as soon as it is read.
  if (readable.readableEnded) {
    ended = true;
    finish();
  } else if (readable.destroyed) finish();
  return {
    done,
    stop: () => {
      if (reader) reader.stop();
      else {
        readable.destroy();
        finish();
      }
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
