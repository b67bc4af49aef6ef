import { utf8CutAfter, utf8CutBefore } from '@wharf/common';
import { formatCut, splitBudget, type TruncationStrategy } from './cut-marker.js';
import { type SpillFile, SpillWriter, type SpillWriterOptions } from './spill-writer.js';
import type { ReaderSegment, ReaderSpillTerms } from './stream-reader.js';
import { TailRing } from './tail-ring.js';
import { countNewlines, preferLineEndBefore, preferLineStartAfter } from './utf8.js';

/**
 * Spill settings of one stream: teed to `path` once the stream grows past `threshold` bytes, or
 * past the retention limit, so that any stream that gets cut is stored in full.
 */
export interface StreamSpillOptions extends SpillWriterOptions {
  threshold: number;
}

/** Settings of a {@link StreamAccumulator}. */
export interface StreamAccumulatorOptions {
  /** Bytes retained in memory (head + tail). */
  maxBytes: number;
  strategy: TruncationStrategy;
  spill?: StreamSpillOptions | undefined;
}

/** What was captured of one stream. */
export interface StreamCapture {
  /** Retained text: the whole output, or head and/or tail around an exact cut marker. */
  text: string;
  /** Retained head (the whole output when nothing was cut). */
  head: string;
  /** Retained tail ('' when nothing was cut or the strategy keeps only the head). */
  tail: string;
  truncated: boolean;
  totalBytes: number;
  retainedBytes: number;
  omittedBytes: number;
  /** Byte offsets `[start, end)` of the omitted part of the stream, or null. */
  omitted: { start: number; end: number } | null;
  /** Lines in the stream (a final line without newline counts). */
  totalLines: number;
  /** Newlines that fell in the omitted part. */
  omittedLines: number;
  /** The full stream on disk, when it was spilled. */
  spill: SpillFile | null;
}

/**
 * Fixed-memory accumulator of one byte stream: a head buffer plus a tail ring, exact byte and
 * line accounting, and an optional spill of the full stream to disk. Memory is O(maxBytes)
 * whatever is written.
 *
 * @example
 * ```ts
 * const accumulator = new StreamAccumulator({ maxBytes: 8, strategy: 'tail' });
 * accumulator.write(Buffer.from('line 1\nline 2\nline 3\n'));
 * (await accumulator.finish()).tail; // 'line 3\n'
 * ```
 */
export class StreamAccumulator {
  readonly #options: StreamAccumulatorOptions;
  readonly #headCapacity: number;
  readonly #head: Buffer[] = [];
  #headLength = 0;
  readonly #ring: TailRing;
  #total = 0;
  #newlines = 0;
  #lastByte = -1;
  #pending: Buffer[] = [];
  #spill: SpillWriter | undefined;
  #readerBytes = 0;

  constructor(options: StreamAccumulatorOptions) {
    this.#options = options;
    const split = splitBudget(options.maxBytes, options.strategy);
    // A few bytes of context beyond each part let the cut see the neighbouring character.
    this.#headCapacity = split.head + CONTEXT_BYTES;
    this.#ring = new TailRing(split.tail + CONTEXT_BYTES);
  }

  /** Stream bytes seen so far (with those the stream reader reported, while it reads). */
  get totalBytes(): number {
    return this.#total + this.#readerBytes;
  }

  /** Bytes the stream reader has read so far (see {@link handOverTerms}); counted until {@link absorb}. */
  set readerBytes(bytes: number) {
    this.#readerBytes = bytes;
  }

  /** Records a chunk. Returns false when the spill asks the reader to wait for {@link waitForDrain}. */
  write(chunk: Buffer): boolean {
    if (chunk.length === 0) return true;
    this.#total += chunk.length;
    this.#newlines += countNewlines(chunk);
    this.#lastByte = chunk[chunk.length - 1] ?? -1;
    let rest = chunk;
    if (this.#headLength < this.#headCapacity) {
      const take = Math.min(this.#headCapacity - this.#headLength, rest.length);
      this.#head.push(Buffer.from(rest.subarray(0, take)));
      this.#headLength += take;
      rest = rest.subarray(take);
    }
    if (rest.length > 0) this.#ring.write(rest);
    return this.#tee(chunk);
  }

  /**
   * Whether the rest of the stream may be read by the stream reader, and on what terms: the
   * head is full (only the tail and the counts change from here), and the spill is off, open
   * (the reader goes on with it; a gzip spill only with a reader built with zlib), full or
   * failed (the reader only counts what it would have dropped). Undefined when it may not,
   * e.g. while the stream is below the spill threshold and its bytes are still held here.
   */
  handOverTerms(reader: { gzip: boolean }): { tailBytes: number; spill?: ReaderSpillTerms } | undefined {
    if (this.#headLength < this.#headCapacity) return undefined;
    const tailBytes = this.#ring.capacity;
    if (this.#options.spill === undefined) return { tailBytes };
    if (this.#spill === undefined) return undefined;
    if (this.#options.spill.compress && !reader.gzip) return undefined;
    const spill = this.#spill.handOver();
    return spill === undefined ? { tailBytes } : { tailBytes, spill };
  }

  /** Takes in what the stream reader read of the rest of the stream (see {@link handOverTerms}). */
  absorb(segment: ReaderSegment): void {
    this.#readerBytes = 0;
    if (segment.spill) this.#spill?.appended(segment.spill);
    else this.#spill?.skipped(segment.totalBytes);
    if (segment.totalBytes === 0) return;
    this.#total += segment.totalBytes;
    this.#newlines += segment.newlines;
    this.#lastByte = segment.lastByte;
    this.#ring.write(segment.tail);
  }

  /** Resolves when the spill can take more bytes. */
  waitForDrain(): Promise<void> {
    return this.#spill ? this.#spill.waitForDrain() : Promise.resolve();
  }

  /** Closes the spill and cuts the retained bytes to `budget` (default: maxBytes). */
  async finish(budget = this.#options.maxBytes): Promise<StreamCapture> {
    // A stream cut only by a smaller budget (the combined limit) has not spilled yet: the pending
    // chunks still hold all of it, so store them now and nothing cut is lost.
    if (this.#total > budget && !this.#spill && this.#options.spill) this.#openSpill(this.#options.spill);
    const spill = this.#spill ? await this.#spill.close() : null;
    const head = Buffer.concat(this.#head);
    const tail = this.#ring.toBuffer();
    const complete = this.#total === head.length + tail.length;
    const strategy = this.#options.strategy === 'summary' ? 'both' : this.#options.strategy;
    const split = splitBudget(Math.min(budget, this.#options.maxBytes), strategy);
    const base = {
      totalLines: this.#newlines + (this.#lastByte !== -1 && this.#lastByte !== 0x0a ? 1 : 0),
      spill,
    };
    if (complete && this.#total <= budget) {
      const text = Buffer.concat([head, tail]).toString('utf8');
      const untruncated = { truncated: false, retainedBytes: this.#total, omittedBytes: 0, omitted: null };
      return {
        ...base,
        ...untruncated,
        text,
        head: text,
        tail: '',
        totalBytes: this.#total,
        omittedLines: 0,
      };
    }
    const headSource = complete ? Buffer.concat([head, tail]) : head;
    const tailSource = complete ? headSource : tail;
    const prefix = cutPrefix(headSource, Math.min(split.head, headSource.length));
    const suffix = cutSuffix(tailSource, Math.max(0, tailSource.length - split.tail));
    const omittedBytes = this.#total - prefix.length - suffix.length;
    const headText = prefix.toString('utf8');
    const tailText = suffix.toString('utf8');
    return {
      ...base,
      text: formatCut({
        strategy,
        head: headText,
        headBytes: prefix.length,
        tail: tailText,
        tailBytes: suffix.length,
        totalBytes: this.#total,
      }),
      head: headText,
      tail: tailText,
      truncated: true,
      totalBytes: this.#total,
      retainedBytes: prefix.length + suffix.length,
      omittedBytes,
      omitted: { start: prefix.length, end: this.#total - suffix.length },
      omittedLines: this.#newlines - countNewlines(prefix) - countNewlines(suffix),
    };
  }

  #tee(chunk: Buffer): boolean {
    const spill = this.#options.spill;
    if (!spill) return true;
    if (this.#spill) return this.#spill.write(chunk);
    this.#pending.push(chunk);
    if (this.#total <= Math.min(spill.threshold, this.#options.maxBytes)) return true;
    return this.#openSpill(spill);
  }

  /** Opens the spill and writes everything held so far (the pending chunks include the last one). */
  #openSpill(options: StreamSpillOptions): boolean {
    const writer = new SpillWriter(options);
    this.#spill = writer;
    let ready = true;
    for (const pending of this.#pending) ready = writer.write(pending);
    this.#pending = [];
    return ready;
  }
}

const CONTEXT_BYTES = 4;

function lineWindow(length: number): number {
  return Math.min(1024, Math.floor(length / 8));
}

/** `source[0, end)` moved back to a character boundary, and to a line end when one is near. */
function cutPrefix(source: Buffer, end: number): Buffer {
  const cut = utf8CutBefore(source, end);
  return source.subarray(0, preferLineEndBefore(source, cut, lineWindow(end)));
}

/** `source[start, length)` moved forward to a character boundary, and to a line start when one is near. */
function cutSuffix(source: Buffer, start: number): Buffer {
  const cut = utf8CutAfter(source, start);
  return source.subarray(preferLineStartAfter(source, cut, lineWindow(source.length - start)));
}
