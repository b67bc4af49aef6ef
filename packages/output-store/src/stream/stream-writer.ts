import { IdempotencyConflictError, InvalidStoreOptionError } from '../errors.js';
import type { OutputEvent, OutputRef, OutputStore, Producer } from '../types.js';
import { asWharfWrite, isReservedContentType, manifestPartLabel } from '../wharf-writes.js';
import { readStream, type StreamSnapshot } from './read-stream.js';
import { StreamClosedError, StreamFlushError, StreamNotFoundError } from './stream-errors.js';
import {
  isStreamLabel,
  type StreamPart,
  streamAttemptLabel,
  streamChunksLabel,
  streamId,
  streamLabel,
  streamMarkerContentType,
  streamPartKey,
  streamPartLabel,
  streamSeqLabel,
} from './stream-keys.js';

/** Default {@link OpenStreamOptions.flushBytes}: 4 KiB. */
export const defaultStreamFlushBytes = 4096;
/** Default {@link OpenStreamOptions.flushMs}: 100 ms. */
export const defaultStreamFlushMs = 100;
/** Default content type of a stream: what a `text` emit stores. */
export const defaultStreamContentType = 'text/plain; charset=utf-8';

/**
 * Options of {@link openStream}. `key`, `name`, `contentType`, `labels` and `ttlMs` are those of
 * the whole output the seal stores: give what a non-streamed write of it would, and the seal is
 * the same output.
 *
 * @example
 * ```ts
 * const options: OpenStreamOptions = { producer, key: 'run-7/draft/final-text', attempt: 1, contentType: 'text/markdown' };
 * ```
 */
export interface OpenStreamOptions {
  readonly producer: Producer;
  /** Idempotency key of the whole output; every part's key is derived from it. */
  readonly key: string;
  /** The attempt writing (a Temporal activity's `attempt`): an integer, 0 or more. */
  readonly attempt: number;
  /** Of the chunks and the seal; default `text/plain; charset=utf-8`. */
  readonly contentType?: string;
  /** Name of the seal. */
  readonly name?: string;
  /** Labels of the seal (chunks and markers carry only the stream's own labels). */
  readonly labels?: Readonly<Record<string, string>>;
  /** Expiry of every part, as `OutputEvent.ttlMs`. */
  readonly ttlMs?: number;
  /** A chunk is stored once this many bytes are buffered (default 4096). */
  readonly flushBytes?: number;
  /** …or this long after the first unflushed append (default 100). */
  readonly flushMs?: number;
}

/**
 * Writes one attempt of a stream: see {@link openStream}.
 *
 * @example
 * ```ts
 * const writer = await openStream(store, { producer, key: 'answer', attempt: 1 });
 * for await (const delta of textStream) await writer.append(delta);
 * const ref = await writer.seal();
 * ```
 */
export interface StreamWriter {
  /** The stream's id (`str_…`). */
  readonly stream: string;
  readonly attempt: number;
  /** `open`, `sealed` or `abandoned`. */
  readonly state: 'open' | 'sealed' | 'abandoned';
  /** Chunks stored so far (including those a writer of the same attempt stored before). */
  readonly chunks: number;
  /**
   * Buffers text (UTF-8) or bytes; stores a chunk when `flushBytes` are buffered (and then
   * resolves when it is stored). Rejects with {@link StreamClosedError} after seal or abandon,
   * and with the {@link StreamFlushError} of an earlier timed flush that failed (once; nothing of
   * this call is taken then, the failed chunk stays buffered for the next flush). When the flush
   * this call starts fails, it rejects with that {@link StreamFlushError}: its bytes are kept,
   * and the next flush stores the same chunk under the same key.
   */
  append(data: string | Uint8Array): Promise<void>;
  /** Stores what is buffered as a chunk now. */
  flush(): Promise<void>;
  /**
   * Stores the rest, then the whole output (the attempt's chunks in order, byte for byte) under
   * `key`, and a marker saying it is sealed; resolves to the whole output's ref. Called again,
   * it returns that ref.
   */
  seal(): Promise<OutputRef>;
  /** Stores what it can of the buffer, then a marker saying the attempt is abandoned. */
  abandon(reason: string): Promise<void>;
}

function checkOptions(options: OpenStreamOptions): void {
  if (!Number.isSafeInteger(options.attempt) || options.attempt < 0)
    throw new InvalidStoreOptionError('attempt', 'must be an integer, 0 or more');
  if (typeof options.key !== 'string' || options.key.length === 0 || options.key.length > 400)
    throw new InvalidStoreOptionError('key', 'must be a non-empty string of at most 400 characters');
  for (const [name, value] of [
    ['flushBytes', options.flushBytes],
    ['flushMs', options.flushMs],
  ] as const) {
    if (value !== undefined && (!Number.isSafeInteger(value) || value < 1))
      throw new InvalidStoreOptionError(name, 'must be a positive integer');
  }
  if (options.contentType !== undefined && isReservedContentType(options.contentType))
    throw new InvalidStoreOptionError(
      'contentType',
      `is reserved for Wharf's own writes (${options.contentType})`,
    );
  for (const label of Object.keys(options.labels ?? {})) {
    if (isStreamLabel(label) || label === manifestPartLabel)
      throw new InvalidStoreOptionError(`labels.${label}`, 'is set by Wharf itself');
  }
}

function concat(pieces: readonly Uint8Array[]): Uint8Array {
  if (pieces.length === 1) return pieces[0] as Uint8Array;
  return Buffer.concat(pieces);
}

async function* bodiesOf(store: OutputStore, refs: readonly OutputRef[]): AsyncGenerator<Uint8Array> {
  for (const ref of refs) {
    const body = await store.openBody(ref);
    for await (const piece of body.stream) yield piece as Uint8Array;
  }
}

async function existing(store: OutputStore, options: OpenStreamOptions): Promise<StreamSnapshot | undefined> {
  try {
    return await readStream(store, { producer: options.producer, key: options.key });
  } catch (error) {
    if (StreamNotFoundError.isInstance(error)) return undefined;
    throw error;
  }
}

class Writer implements StreamWriter {
  readonly stream: string;
  readonly attempt: number;
  state: 'open' | 'sealed' | 'abandoned' = 'open';
  readonly #store: OutputStore;
  readonly #options: OpenStreamOptions;
  readonly #contentType: string;
  readonly #flushBytes: number;
  readonly #flushMs: number;
  readonly #chunkRefs: OutputRef[] = [];
  #pieces: Uint8Array[] = [];
  #buffered = 0;
  /** A chunk whose store failed: stored again, the same bytes under the same seq, first. */
  #retry: Uint8Array | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #pendingError: StreamFlushError | undefined;
  #queue: Promise<void> = Promise.resolve();
  #sealRef: OutputRef | undefined;

  constructor(store: OutputStore, options: OpenStreamOptions) {
    this.#store = store;
    this.#options = options;
    this.stream = streamId(options.producer, options.key);
    this.attempt = options.attempt;
    this.#contentType = options.contentType ?? defaultStreamContentType;
    this.#flushBytes = options.flushBytes ?? defaultStreamFlushBytes;
    this.#flushMs = options.flushMs ?? defaultStreamFlushMs;
  }

  get chunks(): number {
    return this.#chunkRefs.length;
  }

  async start(): Promise<void> {
    const snapshot = await existing(this.#store, this.#options);
    const mine = snapshot?.attempts.find((attempt) => attempt.attempt === this.attempt);
    if (mine?.state === 'sealed' && mine.sealOutId !== undefined) {
      this.state = 'sealed';
      this.#sealRef = { outId: mine.sealOutId };
      return;
    }
    if (mine?.state === 'abandoned') {
      this.state = 'abandoned';
      return;
    }
    // A writer of this attempt that stopped (a crash, a lost worker) stored these: go on after them.
    for (const chunk of mine?.chunks ?? []) {
      if (chunk.seq !== this.#chunkRefs.length) break;
      this.#chunkRefs.push({ outId: chunk.outId });
    }
    // Earlier attempts nobody sealed or abandoned died with their writers: say so, durably,
    // before this one is current, so a reader that sees it current knows how they ended.
    for (const earlier of snapshot?.attempts ?? []) {
      if (earlier.attempt < this.attempt && (earlier.state === 'open' || earlier.state === 'superseded'))
        await this.#marker(
          'abandoned',
          { reason: `superseded by attempt ${this.attempt}`, chunks: earlier.chunks.length },
          earlier.attempt,
        );
    }
    await this.#marker('open', { stream: this.stream, key: this.#options.key, attempt: this.attempt });
  }

  #labels(part: StreamPart, attempt = this.attempt): Record<string, string> {
    return { [streamLabel]: this.stream, [streamAttemptLabel]: String(attempt), [streamPartLabel]: part };
  }

  #event(event: Omit<OutputEvent, 'producer'>): OutputEvent {
    const { ttlMs } = this.#options;
    return asWharfWrite({
      producer: this.#options.producer,
      ...event,
      ...(ttlMs === undefined ? {} : { ttlMs }),
    });
  }

  async #marker(
    part: 'open' | 'sealed' | 'abandoned',
    body: unknown,
    attempt = this.attempt,
  ): Promise<OutputRef> {
    try {
      return await this.#store.emit(
        this.#event({
          content: { kind: 'json', value: body },
          contentType: streamMarkerContentType,
          idempotencyKey: streamPartKey(this.#options.key, attempt, part),
          labels: this.#labels(part, attempt),
        }),
      );
    } catch (error) {
      // Another writer marked it already (another reason, another count): that marker stands.
      if (IdempotencyConflictError.isInstance(error)) return { outId: error.existingOutId };
      throw error;
    }
  }

  #assertOpen(what: string): void {
    if (this.state !== 'open') throw new StreamClosedError(this.stream, this.attempt, this.state, what);
  }

  async append(data: string | Uint8Array): Promise<void> {
    this.#assertOpen('append');
    const failed = this.#pendingError;
    if (failed !== undefined) {
      this.#pendingError = undefined;
      throw failed;
    }
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : Uint8Array.from(data);
    if (bytes.byteLength === 0) return;
    this.#pieces.push(bytes);
    this.#buffered += bytes.byteLength;
    if (this.#buffered >= this.#flushBytes) return this.flush();
    if (this.#timer === undefined) {
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        this.flush().catch((error: unknown) => {
          if (StreamFlushError.isInstance(error)) this.#pendingError = error;
        });
      }, this.#flushMs);
      this.#timer.unref?.();
    }
  }

  flush(): Promise<void> {
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    const run = this.#queue.then(() => this.#flushNow());
    this.#queue = run.catch(() => {});
    return run;
  }

  async #flushNow(): Promise<void> {
    if (this.#retry !== undefined) {
      await this.#storeChunk(this.#retry);
      this.#retry = undefined;
    }
    if (this.#buffered === 0) return;
    const bytes = concat(this.#pieces);
    this.#pieces = [];
    this.#buffered = 0;
    this.#retry = bytes;
    await this.#storeChunk(bytes);
    this.#retry = undefined;
    this.#pendingError = undefined;
  }

  async #storeChunk(bytes: Uint8Array): Promise<void> {
    const seq = this.#chunkRefs.length;
    let ref: OutputRef;
    try {
      ref = await this.#store.emit(
        this.#event({
          content: { kind: 'bytes', bytes },
          contentType: this.#contentType,
          idempotencyKey: streamPartKey(this.#options.key, this.attempt, 'chunk', seq),
          labels: { ...this.#labels('chunk'), [streamSeqLabel]: String(seq) },
        }),
      );
    } catch (error) {
      throw new StreamFlushError(this.stream, this.attempt, seq, error);
    }
    this.#chunkRefs.push(ref);
  }

  async seal(): Promise<OutputRef> {
    if (this.state === 'sealed' && this.#sealRef !== undefined) return this.#sealRef;
    this.#assertOpen('seal');
    await this.flush();
    const { key, name, labels } = this.#options;
    const chunks = [...this.#chunkRefs];
    let ref: OutputRef;
    try {
      ref = await this.#store.emit(
        this.#event({
          content: { kind: 'stream', stream: bodiesOf(this.#store, chunks) },
          contentType: this.#contentType,
          idempotencyKey: key,
          ...(name === undefined ? {} : { name }),
          labels: { ...labels, ...this.#labels('seal'), [streamChunksLabel]: String(chunks.length) },
        }),
      );
    } catch (error) {
      // Another attempt sealed other bytes under the key: the caller's to handle, as for any write.
      if (IdempotencyConflictError.isInstance(error)) throw error;
      throw new StreamFlushError(this.stream, this.attempt, undefined, error);
    }
    await this.#marker('sealed', { outId: ref.outId, chunks: chunks.length });
    this.state = 'sealed';
    this.#sealRef = ref;
    return ref;
  }

  async abandon(reason: string): Promise<void> {
    this.#assertOpen('abandon');
    let unsaved = 0;
    try {
      await this.flush();
    } catch {
      unsaved = (this.#retry?.byteLength ?? 0) + this.#buffered;
    }
    this.state = 'abandoned';
    await this.#marker('abandoned', { reason, chunks: this.#chunkRefs.length, unsavedBytes: unsaved });
  }
}

/**
 * Opens one attempt of a durable output stream on any {@link OutputStore}: text appended is
 * stored as it comes, in chunks (batched: a chunk per `flushBytes` or `flushMs`, not per append),
 * and sealed into one whole output, byte-identical to a non-streamed write of the same bytes
 * under `key`. Opening stores a small `open` marker (the attempt is then current for readers)
 * and marks earlier attempts nobody sealed or abandoned as abandoned. A writer opened again for
 * an attempt that stored chunks goes on after them (a crashed writer's retry); one opened for a
 * sealed or abandoned attempt is closed (its `seal` returns the stored ref).
 *
 * @example
 * ```ts
 * const writer = await openStream(store, {
 *   producer: { ownerId: 'team-a', runId: 'run-7', spawnId: 'draft' },
 *   key: 'run-7/draft/final-text', attempt: 1, contentType: 'text/markdown', flushMs: 50,
 * });
 * await writer.append('# Plan\n');
 * await writer.append('1. …');
 * const ref = await writer.seal(); // the same output `store.emit` of the whole text stores
 * ```
 */
export async function openStream(store: OutputStore, options: OpenStreamOptions): Promise<StreamWriter> {
  checkOptions(options);
  const writer = new Writer(store, options);
  await writer.start();
  return writer;
}
