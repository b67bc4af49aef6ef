import { Readable } from 'node:stream';
import type { ByteRange, OpenedBody, OutputRecord, OutputRef, OutputStore } from '@wharf/output-store';
import { readBody, resolveRange } from '@wharf/output-store';
import { SharedReads } from './shared-reads.js';

/** Options of {@link MapItemReads}. */
export interface MapItemReadsOptions {
  /** The largest body kept whole (larger ones are read by range, as before); default 8 MiB. */
  maxBodyBytes?: number;
  /** Bytes of bodies kept in all (the most recently used); default 32 MiB. */
  maxBytes?: number;
  /** Bodies known in all, kept or too large to keep; default 256. */
  maxEntries?: number;
  /**
   * How long a body is served from memory, in milliseconds; default 60,000. It bounds how long
   * an output deleted meanwhile can still be read here.
   */
  ttlMs?: number;
  /** The clock; default `Date.now`. */
  now?: () => number;
}

/** A body kept whole, or the word that it is too large to keep. */
type Kept = { record: OutputRecord; bytes: Buffer } | { tooLarge: true };

/**
 * The bodies a map's instances read their item from, each read whole once per worker and served
 * by range from memory: every instance of a map reads a 32-byte record of the same item index
 * and its item from the same output, so a 10,000-item map read those two bodies 10,000 times
 * each (on a shared data plane, a database row or an S3 object each time). Outputs never change
 * once stored, so the bytes are the same; a body is served for at most `ttlMs`, since one deleted
 * meanwhile would otherwise still be read. The first read of a body asks its size: one over
 * `maxBodyBytes` is read by range from the store as before. Concurrent reads share the one read;
 * a failed one is not kept. It reads what it is asked for, as the store would: whoever names a
 * ref here could read it from the store.
 *
 * @example
 * ```ts
 * const reads = new MapItemReads(store);
 * const item = await readItem(reads, { outId: indexId }, 41, 'line'); // 'src/app.ts', as readItem(store, …)
 * ```
 */
export class MapItemReads {
  readonly #store: Pick<OutputStore, 'openBody' | 'stat'>;
  readonly #maxBodyBytes: number;
  /** By out id. */
  readonly #reads: SharedReads<Kept>;

  constructor(store: Pick<OutputStore, 'openBody' | 'stat'>, options: MapItemReadsOptions = {}) {
    this.#store = store;
    this.#maxBodyBytes = options.maxBodyBytes ?? 8 * 1024 * 1024;
    this.#reads = new SharedReads({
      maxEntries: options.maxEntries ?? 256,
      maxBytes: options.maxBytes ?? 32 * 1024 * 1024,
      ttlMs: options.ttlMs ?? 60_000,
      ...(options.now === undefined ? {} : { now: options.now }),
    });
  }

  /** `range` of the body of `ref` (all of it without one), as `OutputStore.openBody` gives it. */
  async openBody(ref: OutputRef, range?: ByteRange): Promise<OpenedBody> {
    const kept = await this.#reads.get(
      ref.outId,
      () => this.#read(ref),
      (read) => ('tooLarge' in read ? 0 : read.bytes.length),
    );
    if ('tooLarge' in kept) return this.#store.openBody(ref, range);
    const { start, end } = resolveRange(range, kept.bytes.length);
    const slice = kept.bytes.subarray(start, end);
    return { record: kept.record, start, end, stream: Readable.from(slice.length > 0 ? [slice] : []) };
  }

  async #read(ref: OutputRef): Promise<Kept> {
    const record = await this.#store.stat(ref);
    if (record.sizeBytes > this.#maxBodyBytes) return { tooLarge: true };
    const { bytes } = await readBody(this.#store, ref);
    return { record, bytes };
  }
}
