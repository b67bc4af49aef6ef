import { createHash, type Hash } from 'node:crypto';
import { closeSync, constants, createWriteStream, mkdirSync, openSync, type WriteStream } from 'node:fs';
import { rename, stat, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Writable } from 'node:stream';
import { createGzip, constants as zlib } from 'node:zlib';
import type { ReaderSpillResult, ReaderSpillTerms } from './stream-reader.js';

/**
 * Opens a spill's `.partial` file for writing, making its folder only when it is missing (a
 * capture's two streams share one, which its caller usually made: a `mkdir -p` before each
 * cost a call that failed with `EEXIST`). Undefined when it cannot be opened: the file stream
 * then opens it itself and reports the error, and the capture goes on.
 */
function openPartial(path: string): number | undefined {
  try {
    return openSync(path, 'w', 0o666);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return undefined;
  }
  try {
    mkdirSync(dirname(path), { recursive: true });
    return openSync(path, 'w', 0o666);
  } catch {
    return undefined;
  }
}

/** Plain-file writes are corked into batches of this size (one writev, no copy). */
const BATCH_BYTES = 1024 * 1024;
/**
 * gzip input is gathered into blocks of this size: each write to the gzip stream is one trip to
 * the thread pool, and pipe reads are often only a few KiB. Small enough that compression still
 * overlaps reading.
 */
const GZIP_BLOCK_BYTES = 256 * 1024;
/** Bytes the sink may hold before the reader is asked to pause (lets gzip work in parallel). */
const SINK_BUFFER_BYTES = 2 * 1024 * 1024;
/** Enough free blocks to refill the sink's buffer, and no more. */
const MAX_FREE_BLOCKS = SINK_BUFFER_BYTES / GZIP_BLOCK_BYTES + 1;

/** Where and how a stream is spilled to disk. */
export interface SpillWriterOptions {
  /** Final path of the spill file; it is written as `<path>.partial` and renamed when complete. */
  path: string;
  /** gzip the file. */
  compress: boolean;
  /** Hard cap on the stream bytes written; bytes beyond it are counted but not stored. */
  maxBytes: number;
  /** gzip level, 1 (fast, the default) to 9. */
  compressionLevel?: number;
}

/** A finished spill file. `sha256` and `bytes` describe the stream content (before gzip). */
export interface SpillFile {
  path: string;
  compressed: boolean;
  /** Stream bytes stored in the file (uncompressed). */
  bytes: number;
  /** Size of the file on disk. */
  fileBytes: number;
  /** Hex sha256 of the stored stream bytes (uncompressed). */
  sha256: string;
  /** True when the hard cap stopped the spill before the stream ended. */
  capped: boolean;
  /** Stream bytes not stored because of the cap. */
  droppedBytes: number;
  /** Set when writing failed; the file then holds at most `bytes` and may be missing. */
  error?: string;
}

/**
 * Tees stream bytes to a file (optionally gzip) under a hard cap, hashing what it stores.
 * `write` returns false when the caller should wait for {@link SpillWriter.waitForDrain}.
 *
 * @example
 * ```ts
 * const spill = new SpillWriter({ path: '/tmp/out.log', compress: false, maxBytes: 1 << 30 });
 * spill.write(Buffer.from('hello\n'));
 * const file = await spill.close(); // { path: '/tmp/out.log', bytes: 6, sha256: '…', … }
 * ```
 */
export class SpillWriter {
  readonly #options: SpillWriterOptions;
  readonly #hash: Hash = createHash('sha256');
  readonly #file: WriteStream;
  readonly #sink: Writable;
  #bytes = 0;
  #dropped = 0;
  #batchBytes = 0;
  /** The gzip block being gathered, and how much of it is filled. */
  #block: Buffer | undefined;
  #blockBytes = 0;
  /**
   * Blocks gzip has finished reading, ready to gather into again: a fresh 256 KiB buffer per
   * block would hand the garbage collector the whole stream a second time.
   */
  readonly #freeBlocks: Buffer[] = [];
  #error: Error | undefined;
  /** The file as handed to the stream reader (see {@link SpillWriter.handOver}). */
  #handOver: { fd: number; released?: Promise<unknown>; sha256?: string } | undefined;

  constructor(options: SpillWriterOptions) {
    this.#options = options;
    const partial = `${options.path}.partial`;
    const fd = openPartial(partial);
    this.#file = createWriteStream(partial, {
      highWaterMark: SINK_BUFFER_BYTES,
      ...(fd === undefined ? {} : { fd }),
    });
    this.#file.on('error', (error) => this.#fail(error));
    if (options.compress) {
      const gzip = createGzip({
        level: options.compressionLevel ?? zlib.Z_BEST_SPEED,
        memLevel: 9,
        chunkSize: 256 * 1024,
      });
      gzip.on('error', (error) => this.#fail(error));
      gzip.pipe(this.#file);
      this.#sink = gzip;
    } else {
      this.#sink = this.#file;
    }
  }

  /** Stream bytes stored so far. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Stores what fits under the cap; false asks the caller to wait for drain. */
  write(chunk: Buffer): boolean {
    if (this.#error) {
      this.#dropped += chunk.length;
      return true;
    }
    const room = this.#options.maxBytes - this.#bytes;
    const stored = chunk.length <= room ? chunk : chunk.subarray(0, Math.max(0, room));
    this.#dropped += chunk.length - stored.length;
    if (stored.length === 0) return true;
    this.#bytes += stored.length;
    this.#hash.update(stored);
    if (this.#options.compress) return this.#gather(stored);
    if (this.#batchBytes === 0) this.#sink.cork();
    this.#batchBytes += stored.length;
    this.#sink.write(stored);
    if (this.#batchBytes < BATCH_BYTES) return true;
    this.#flush();
    return this.#sink.writableLength < SINK_BUFFER_BYTES;
  }

  /** Copies `stored` into gzip blocks, handing each full block to the gzip stream. */
  #gather(stored: Buffer): boolean {
    let ready = true;
    let rest = stored;
    while (rest.length > 0) {
      if (this.#blockBytes === 0 && rest.length >= GZIP_BLOCK_BYTES) {
        // A large chunk goes as it is, with no copy.
        ready = this.#sink.write(rest) || this.#sink.writableLength < SINK_BUFFER_BYTES;
        break;
      }
      this.#block ??= this.#freeBlocks.pop() ?? Buffer.allocUnsafe(GZIP_BLOCK_BYTES);
      const take = Math.min(rest.length, GZIP_BLOCK_BYTES - this.#blockBytes);
      this.#block.set(rest.subarray(0, take), this.#blockBytes);
      this.#blockBytes += take;
      rest = rest.subarray(take);
      if (this.#blockBytes === GZIP_BLOCK_BYTES) ready = this.#sendBlock();
    }
    return ready;
  }

  #sendBlock(): boolean {
    const block = this.#block;
    const length = this.#blockBytes;
    this.#block = undefined;
    this.#blockBytes = 0;
    if (!block || length === 0) return true;
    // The write callback runs once gzip has consumed the whole block; only then may it be reused.
    const written = this.#sink.write(block.subarray(0, length), (error) => {
      if (!error && this.#freeBlocks.length < MAX_FREE_BLOCKS) this.#freeBlocks.push(block);
    });
    return written || this.#sink.writableLength < SINK_BUFFER_BYTES;
  }

  #flush(): void {
    if (this.#blockBytes > 0) this.#sendBlock();
    if (this.#batchBytes === 0) return;
    this.#batchBytes = 0;
    this.#sink.uncork();
  }

  /** Resolves when the sink can take more bytes (or has failed). */
  waitForDrain(): Promise<void> {
    if (this.#error || !this.#sink.writableNeedDrain || this.#sink.writableLength < SINK_BUFFER_BYTES) {
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        this.#sink.off('drain', done);
        this.#sink.off('close', done);
        this.#file.off('error', done);
        resolve();
      };
      this.#sink.on('drain', done);
      this.#sink.on('close', done);
      this.#file.on('error', done);
    });
  }

  /**
   * Hands the file to the stream reader, which goes on with the stream where this writer stops
   * (gzip too): the file open for reading and writing, the room left under the cap, and
   * `release`, which ends writing here and resolves once everything written so far is on disk
   * (the reader waits for that, reads it back for the sha256, and appends after it). Undefined
   * when there is nothing to go on with (failed, full, or the file not open yet). Until
   * `release` is called, {@link SpillWriter.appended} with nothing stored gives the file back.
   */
  handOver(): ReaderSpillTerms | undefined {
    const room = this.#options.maxBytes - this.#bytes;
    if (this.#error || this.#file.pending || this.#handOver || room <= 0) return undefined;
    let fd: number;
    try {
      fd = openSync(`${this.#options.path}.partial`, constants.O_RDWR);
    } catch {
      return undefined;
    }
    const handOver: { fd: number; released?: Promise<unknown> } = { fd };
    this.#handOver = handOver;
    const release = () => {
      const released = new Promise<{ streamBytes: number; fileBytes: number } | undefined>((resolve) => {
        const done = () =>
          resolve(this.#error ? undefined : { streamBytes: this.#bytes, fileBytes: this.#file.bytesWritten });
        this.#file.once('close', done);
        this.#file.once('error', done);
        this.#flush();
        this.#sink.end();
      });
      handOver.released = released;
      return released;
    };
    return {
      fd,
      compress: this.#options.compress,
      level: this.#options.compressionLevel ?? zlib.Z_BEST_SPEED,
      room,
      release,
    };
  }

  /** Records what the stream reader did with the file after {@link SpillWriter.handOver}. */
  appended(result: ReaderSpillResult): void {
    const handOver = this.#handOver;
    if (handOver === undefined) return;
    closeSync(handOver.fd);
    if (handOver.released === undefined) {
      // Never released: the reader did not start, and this writer goes on.
      this.#handOver = undefined;
      return;
    }
    this.#bytes += result.stored;
    this.#dropped += result.dropped;
    if (result.sha256 !== undefined) this.#handOver = { ...handOver, sha256: result.sha256 };
    if (result.error !== undefined) this.#fail(new Error(result.error));
    else if (result.sha256 === undefined) this.#fail(new Error('the stream reader reported no sha256'));
  }

  /** Counts stream bytes that went by without being offered to this writer (it was full or failed). */
  skipped(bytes: number): void {
    this.#dropped += bytes;
  }

  /** Flushes, renames the `.partial` file to its final path, and describes it. */
  async close(): Promise<SpillFile> {
    const path = this.#options.path;
    if (this.#handOver?.released) {
      await this.#handOver.released;
    } else if (!this.#error) {
      await new Promise<void>((resolve) => {
        this.#file.once('close', () => resolve());
        this.#file.once('error', () => resolve());
        this.#flush();
        this.#sink.end();
      });
    }
    this.#freeBlocks.length = 0;
    let fileBytes = 0;
    if (!this.#error) {
      try {
        await rename(`${path}.partial`, path);
        fileBytes = (await stat(path)).size;
      } catch (error) {
        this.#fail(error as Error);
      }
    }
    if (this.#error) await unlink(`${path}.partial`).catch(() => undefined);
    return {
      path,
      compressed: this.#options.compress,
      bytes: this.#bytes,
      fileBytes,
      // Once handed over, the stream reader hashed the whole stream, this writer's part included.
      sha256: this.#handOver?.sha256 ?? this.#hash.digest('hex'),
      capped: this.#dropped > 0 && !this.#error,
      droppedBytes: this.#dropped,
      ...(this.#error ? { error: this.#error.message } : {}),
    };
  }

  #fail(error: Error): void {
    if (this.#error) return;
    this.#error = error;
    this.#sink.destroy();
    this.#file.destroy();
  }
}
