import type { Readable } from 'node:stream';
import type { ByteRange } from '@wharf/common';

/**
 * The small handle that travels through workflow history and `IN_REFS` instead of a body.
 *
 * @example
 * ```ts
 * const ref: OutputRef = { outId: 'out_3fZ8kQ1xP0aLm2Vb' };
 * ```
 */
export interface OutputRef {
  readonly outId: string;
}

/**
 * Who produced an output: the owner (tenant), the run, the spawn inside the run and,
 * optionally, the agent's name.
 *
 * @example
 * ```ts
 * const producer: Producer = { ownerId: 'team-a', runId: 'run-7', spawnId: 'spawn-3', agent: 'summariser' };
 * ```
 */
export interface Producer {
  readonly ownerId: string;
  readonly runId: string;
  readonly spawnId: string;
  readonly agent?: string;
}

/**
 * Where an idempotency key is unique: one owner, run and spawn. Two spawns may use the same
 * key for different outputs; neither ever sees the other's output through it. A
 * {@link Producer} is a scope.
 *
 * @example
 * ```ts
 * const scope: IdempotencyScope = { ownerId: 'team-a', runId: 'run-7', spawnId: 'spawn-3' };
 * const ref = await store.findByIdempotencyKey(scope, 'wf-1/act-3/0');
 * ```
 */
export type IdempotencyScope = Pick<Producer, 'ownerId' | 'runId' | 'spawnId'>;

/**
 * How content arrives at the store: inline (text, a JSON value or bytes), a file path under
 * an allowed root (copied in), or a byte stream (never held in memory as a whole).
 *
 * @example
 * ```ts
 * const text: ContentRef = { kind: 'text', text: 'hello' };
 * const file: ContentRef = { kind: 'file', path: '/srv/work/report.md' };
 * ```
 */
export type ContentRef =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'json'; readonly value: unknown }
  | { readonly kind: 'bytes'; readonly bytes: Uint8Array }
  | { readonly kind: 'file'; readonly path: string }
  | { readonly kind: 'stream'; readonly stream: AsyncIterable<Uint8Array> };

/**
 * What a worker submits. `idempotencyKey` makes the submission safe to retry: the same key
 * from the same owner, run and spawn ({@link IdempotencyScope}) with the same body returns the
 * same ref; with another body it is a conflict. Another spawn's use of the key is unrelated.
 *
 * @example
 * ```ts
 * const event: OutputEvent = {
 *   producer: { ownerId: 'team-a', runId: 'run-7', spawnId: 'spawn-3' },
 *   content: { kind: 'text', text: '# Report' },
 *   name: 'report.md', contentType: 'text/markdown', labels: { step: 'draft' },
 *   idempotencyKey: 'wf-1/act-3/0',
 * };
 * ```
 */
export interface OutputEvent {
  readonly producer: Producer;
  readonly content: ContentRef;
  readonly idempotencyKey: string;
  readonly name?: string;
  /** Defaults by content kind: text/plain, application/json or application/octet-stream. */
  readonly contentType?: string;
  readonly labels?: Readonly<Record<string, string>>;
  /** The output expires this many milliseconds after it is stored. */
  readonly ttlMs?: number;
}

/**
 * Where a body lives: inside the metadata row, or in a content-addressed file.
 *
 * @example
 * ```ts
 * const kind: StorageKind = (await store.stat(ref)).storage;
 * ```
 */
export type StorageKind = 'inline' | 'file';

/**
 * Metadata of one stored output.
 *
 * @example
 * ```ts
 * const record = await store.stat(ref);
 * console.log(record.sizeBytes, record.sha256, record.producer.spawnId);
 * ```
 */
export interface OutputRecord {
  readonly outId: string;
  readonly producer: Producer;
  readonly name?: string;
  readonly contentType: string;
  readonly sizeBytes: number;
  /** Lower-case hex SHA-256 of the body. */
  readonly sha256: string;
  /** ISO-8601 timestamp. */
  readonly createdAt: string;
  /** ISO-8601 timestamp after which the output reads as expired. */
  readonly expiresAt?: string;
  readonly storage: StorageKind;
  readonly labels: Readonly<Record<string, string>>;
  readonly idempotencyKey: string;
}

/** A byte range of a body (`@wharf/common`'s, the one every Wharf package reads parts with). */
export type { ByteRange };

/**
 * An opened body: the record, the resolved range and a stream of exactly those bytes.
 *
 * @example
 * ```ts
 * const body = await store.openBody(ref, { start: 100 });
 * for await (const chunk of body.stream) process.stdout.write(chunk);
 * ```
 */
export interface OpenedBody {
  readonly record: OutputRecord;
  readonly start: number;
  readonly end: number;
  readonly stream: Readable;
}

/**
 * Filters for {@link OutputStore.list}. All given filters must match; `labels` must all be present.
 *
 * @example
 * ```ts
 * const query: ListQuery = { runId: 'run-7', labels: { step: 'draft' }, limit: 50 };
 * ```
 */
export interface ListQuery {
  readonly ownerId?: string;
  readonly runId?: string;
  readonly spawnId?: string;
  readonly labels?: Readonly<Record<string, string>>;
  /** Page size, 1..1000, default 100. */
  readonly limit?: number;
  /** `nextCursor` of the previous page. */
  readonly cursor?: string;
}

/**
 * One page of {@link OutputStore.list}, oldest first.
 *
 * @example
 * ```ts
 * let page = await store.list({ runId: 'run-7' });
 * while (page.nextCursor) page = await store.list({ runId: 'run-7', cursor: page.nextCursor });
 * ```
 */
export interface ListPage {
  readonly records: readonly OutputRecord[];
  readonly nextCursor?: string;
}

/**
 * What {@link OutputStore.gc} removes. Outputs past their own `expiresAt` are always removed.
 *
 * @example
 * ```ts
 * await store.gc({ olderThanMs: 7 * 86_400_000, maxTotalBytes: 10 * 2 ** 30 });
 * ```
 */
export interface RetentionPolicy {
  /** Remove outputs created more than this many milliseconds ago (reason `expired`). */
  readonly olderThanMs?: number;
  /** Remove every output of this run (reason `deleted`). */
  readonly runId?: string;
  /** Then remove oldest outputs until the total body size is at most this (reason `evicted`). */
  readonly maxTotalBytes?: number;
  /**
   * Stores that keep bodies outside their records then remove the unreferenced ones last
   * written longer ago than this (see {@link OutputStore.sweepOrphanBodies}); default one hour.
   */
  readonly orphanGraceMs?: number;
}

/**
 * What an `emitWithRecord` (SQLite and PostgreSQL stores) stored or found: the ref, its record,
 * and whether this call created the output (`false`: the idempotency key already held one with
 * the same bytes).
 *
 * @example
 * ```ts
 * const { ref, record, created } = await store.emitWithRecord(event);
 * ```
 */
export interface EmittedOutput {
  readonly ref: OutputRef;
  readonly record: OutputRecord;
  readonly created: boolean;
}

/**
 * Options of an `emitWithRecord`.
 *
 * @example
 * ```ts
 * await store.emitWithRecord(event, { maxOutputs: 16 });
 * ```
 */
export interface EmitWithRecordOptions {
  /**
   * Most live outputs the event's spawn (owner, run, spawn) may hold, checked by the database
   * in the transaction that inserts the row, so no number of concurrent emits from any process
   * sharing the store can pass it; a new output beyond it is refused with
   * `OutputForbiddenError`, a replay of a stored key is answered as ever.
   */
  readonly maxOutputs?: number;
}

/**
 * Outcome of {@link OutputStore.gc}: the outputs it removed and their bytes, and the
 * unreferenced bodies its sweep removed (see {@link OutputStore.sweepOrphanBodies}; none for a
 * store that keeps every body in its records).
 *
 * @example
 * ```ts
 * const { removed, freedBytes, orphanBodies } = await store.gc({ runId: 'run-7' });
 * console.log(`${removed} outputs and ${orphanBodies.removed} unreferenced bodies removed`);
 * ```
 */
export interface GcResult {
  /** Outputs (records) removed. */
  readonly removed: number;
  /** Bytes of the outputs removed. */
  readonly freedBytes: number;
  /** Bodies no record referenced that the sweep after the removals deleted, and their bytes. */
  readonly orphanBodies: OrphanSweepResult;
}

/**
 * Options of {@link OutputStore.sweepOrphanBodies}.
 *
 * @example
 * ```ts
 * await store.sweepOrphanBodies?.({ graceMs: 3_600_000, dryRun: true });
 * ```
 */
export interface OrphanSweepOptions {
  /**
   * Only bodies last written longer ago than this go (default `defaultOrphanGraceMs`, one
   * hour): a younger unreferenced body may be an EMIT's, uploaded and about to be committed.
   */
  readonly graceMs?: number;
  /** Count what would go, remove nothing. */
  readonly dryRun?: boolean;
}

/**
 * Outcome of {@link OutputStore.sweepOrphanBodies}: bodies removed (or, dry, that would be) and
 * their bytes.
 *
 * @example
 * ```ts
 * const { removed, freedBytes } = await store.sweepOrphanBodies?.() ?? { removed: 0, freedBytes: 0 };
 * ```
 */
export interface OrphanSweepResult {
  readonly removed: number;
  readonly freedBytes: number;
}

/**
 * The output store (intake → allocate ref → register → persist). Implemented by
 * `InMemoryOutputStore`, `SqliteOutputStore` and `PostgresOutputStore`; any backend should pass
 * `runOutputStoreContract` from `@wharf/output-store/testing`.
 *
 * @example
 * ```ts
 * const ref = await store.emit({ producer, content: { kind: 'text', text: 'hi' }, idempotencyKey: 'k1' });
 * const { record, body } = await store.get(ref);
 * ```
 */
export interface OutputStore {
  /** Stores an output; a retry with the same idempotency key (same scope) returns the same ref. */
  emit(event: OutputEvent): Promise<OutputRef>;
  /** The record; throws `OutputNotFoundError` with a reason. */
  stat(ref: OutputRef): Promise<OutputRecord>;
  /** Record and whole body. Prefer {@link OutputStore.openBody} for large bodies. */
  get(ref: OutputRef): Promise<{ record: OutputRecord; body: Uint8Array }>;
  /** A stream of the body or of a byte range of it. */
  openBody(ref: OutputRef, range?: ByteRange): Promise<OpenedBody>;
  /** Records matching the query, oldest first, paginated. */
  list(query?: ListQuery): Promise<ListPage>;
  /** How many live outputs match the filters (`limit` and `cursor` are ignored). */
  count(query?: ListQuery): Promise<number>;
  /** The live ref stored under this idempotency key by this owner, run and spawn, if any. */
  findByIdempotencyKey(scope: IdempotencyScope, idempotencyKey: string): Promise<OutputRef | undefined>;
  /** Deletes an output; false when there was nothing to delete. */
  delete(ref: OutputRef): Promise<boolean>;
  /** Applies a retention policy. */
  gc(policy?: RetentionPolicy): Promise<GcResult>;
  /**
   * Removes the bodies its blob store holds that no record references (left by an EMIT that
   * died between its upload and its commit) and that are older than the grace period. Only a
   * store that keeps bodies outside its records has it, and it removes only bodies of a blob
   * store it has proven its own (see `BlobStore.claim`).
   */
  sweepOrphanBodies?(options?: OrphanSweepOptions): Promise<OrphanSweepResult>;
  /** Releases resources; further calls fail. */
  close(): Promise<void>;
}
