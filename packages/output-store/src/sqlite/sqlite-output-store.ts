import { mkdirSync, statSync } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { Readable } from 'node:stream';
import Database from 'better-sqlite3';
import { BlobDirectory } from '../blobs/blob-directory.js';
import type { BlobStore } from '../blobs/blob-store.js';
import { resolveRange } from '../byte-range.js';
import { decodeCursor, encodeCursor, pageLimit } from '../cursor.js';
import {
  BlobNotFoundError,
  IdempotencyConflictError,
  type NotFoundReason,
  OutputForbiddenError,
  OutputNotFoundError,
  StorageFailureError,
} from '../errors.js';
import { newOutId } from '../ids.js';
import {
  insertedColumns,
  insertParameters,
  type OutputRow,
  type RowValues,
  recordColumns,
  recordOf,
  rowToRecord,
  rowValues,
} from '../output-row.js';
import { OutputStoreError } from '../output-store-error.js';
import { createPrivateFile, tightenPrivateFile } from '../private-mode.js';
import { orphanGraceMs } from '../retention.js';
import { type SpooledBody, spoolBody } from '../spool-body.js';
import type {
  ByteRange,
  EmittedOutput,
  EmitWithRecordOptions,
  GcResult,
  IdempotencyScope,
  ListPage,
  ListQuery,
  OpenedBody,
  OrphanSweepOptions,
  OrphanSweepResult,
  OutputEvent,
  OutputRecord,
  OutputRef,
  OutputStore,
  RetentionPolicy,
} from '../types.js';
import { validateKeyLookup, validateListQuery, validateOutputEvent } from '../validate-event.js';
import { ExternalBlobs } from './external-blobs.js';
import { migrate } from './migrations.js';
import { RowWriter } from './row-writer.js';
import type { RowWriterItem, RowWriterOutcome } from './row-writer-protocol.js';
import { parseRow, prepareStatements, type Statements, statementSql } from './statements.js';

/**
 * Options of {@link SqliteOutputStore}.
 *
 * @example
 * ```ts
 * const options: SqliteOutputStoreOptions = { path: '.wharf/outputs.db', allowedRoots: ['/srv/work'] };
 * ```
 */
export interface SqliteOutputStoreOptions {
  /** The database file; created with its directory. Body files go to `<path>.blobs/`. */
  readonly path: string;
  /** Where large bodies live, default `<path>.blobs` (with `blobs`: only their temp files). */
  readonly blobDir?: string;
  /**
   * Keep large bodies in this blob store (e.g. an `S3BlobStore`) instead of the directory.
   * Each body is uploaded before its row commits; the store closes it on `close()`.
   */
  readonly blobs?: BlobStore;
  /** Bodies up to this size are stored in the row, default 64 KiB. */
  readonly inlineThresholdBytes?: number;
  /** Largest accepted body, default 4 GiB. */
  readonly maxBodyBytes?: number;
  /** Directories `file` content may come from; none by default. */
  readonly allowedRoots?: readonly string[];
  /** `NORMAL` (default; WAL commits survive a process crash) or `FULL` (also power loss). */
  readonly synchronous?: 'NORMAL' | 'FULL';
  /** How long to wait for another process's write lock, default 10 s. */
  readonly busyTimeoutMs?: number;
  /**
   * Commit new outputs with bodies stored in the row (up to `inlineThresholdBytes`) in a worker
   * thread that owns its own connection to the database, instead of on the event loop; default
   * false. An emit still resolves only once its row is committed, and idempotency keys, quotas
   * and errors are as without it. Emits that arrive while a batch is committing are sent as the
   * next batch, so more of them share one commit. Larger bodies, deletes and gc stay on the
   * calling thread. See the output store's README (the writer thread).
   */
  readonly writerThread?: boolean;
  /** Clock in epoch milliseconds (tests). */
  readonly now?: () => number;
}

type Removal = { outId: string; reason: NotFoundReason };

/** A committed emit: the ref, and the record when this emit inserted the row. */
interface Committed {
  readonly ref: OutputRef;
  readonly record?: OutputRecord;
}

interface PendingCommit {
  readonly event: OutputEvent;
  readonly spooled: SpooledBody;
  readonly maxOutputs: number | undefined;
  readonly resolve: (committed: Committed) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * An {@link OutputStore} on SQLite (WAL, prepared statements, versioned migrations). Small
 * bodies live in the row; larger ones are streamed to content-addressed files that are
 * fsynced and renamed into place before their row commits, so a crash never leaves a
 * visible partial output. Opening cleans temp files of dead writers and unreferenced body
 * files. Several processes may share one database.
 *
 * @example
 * ```ts
 * const store = new SqliteOutputStore({ path: '.wharf/outputs.db' });
 * const ref = await store.emit({
 *   producer: { ownerId: 'o', runId: 'r', spawnId: 's' },
 *   content: { kind: 'text', text: 'hello' }, idempotencyKey: 'k1',
 * });
 * console.log((await store.stat(ref)).sizeBytes);
 * await store.close();
 * ```
 */
export class SqliteOutputStore implements OutputStore {
  readonly #db: Database.Database;
  readonly #blobs: BlobDirectory;
  readonly #external: ExternalBlobs | undefined;
  readonly #inlineThresholdBytes: number;
  readonly #maxBodyBytes: number;
  readonly #allowedRoots: readonly string[];
  readonly #now: () => number;
  readonly #statements: Statements;
  readonly #listStatements = new Map<string, Database.Statement>();
  readonly #pending: PendingCommit[] = [];
  /** With `writerThread`: the thread, the emits waiting for its next batch, and its batches in flight. */
  readonly #writer: RowWriter | undefined;

  /** True when small new outputs are committed in a writer thread (`SqliteOutputStoreOptions.writerThread`). */
  get writerThread(): boolean {
    return this.#writer !== undefined;
  }
  readonly #writerQueue: PendingCommit[] = [];
  readonly #writerBatches = new Set<Promise<void>>();
  /** Body files whose last row a transaction removed; unlinked only after it commits. */
  readonly #doomed = new Set<string>();
  #flushScheduled = false;
  readonly #batchTransaction: Database.Transaction<
    (items: readonly PendingCommit[], now: number) => { committed?: Committed; error?: unknown }[]
  >;
  readonly #commitTransaction: Database.Transaction<
    (event: OutputEvent, spooled: SpooledBody, now: number) => Committed
  >;
  #closed = false;

  constructor(options: SqliteOutputStoreOptions) {
    // Only the folders it creates are made private: the database's folder may be anyone's.
    mkdirSync(dirname(options.path), { recursive: true, mode: 0o700 });
    this.#inlineThresholdBytes = options.inlineThresholdBytes ?? 64 * 1024;
    this.#maxBodyBytes = options.maxBodyBytes ?? 4 * 2 ** 30;
    this.#allowedRoots = options.allowedRoots ?? [];
    this.#now = options.now ?? Date.now;
    try {
      // Created 0600 before SQLite opens it, so its -wal and -shm (which copy its mode) are too;
      // a database of this user's made before is tightened to the same.
      createPrivateFile(options.path);
      for (const suffix of ['', '-wal', '-shm']) tightenPrivateFile(`${options.path}${suffix}`);
      this.#db = new Database(options.path, { timeout: options.busyTimeoutMs ?? 10_000 });
      this.#db.pragma('journal_mode = WAL');
      this.#db.pragma(`synchronous = ${options.synchronous ?? 'NORMAL'}`);
      this.#db.pragma('foreign_keys = ON');
      migrate(this.#db);
      this.#statements = prepareStatements(this.#db);
      this.#writer = options.writerThread
        ? new RowWriter({
            path: options.path,
            busyTimeoutMs: options.busyTimeoutMs ?? 10_000,
            synchronous: options.synchronous ?? 'NORMAL',
            sql: statementSql,
            insertedColumns,
          })
        : undefined;
      this.#commitTransaction = this.#db.transaction(
        (event: OutputEvent, spooled: SpooledBody, now: number) => this.#insert(event, spooled, now),
      );
      this.#batchTransaction = this.#db.transaction((items: readonly PendingCommit[], now: number) =>
        items.map((item) => {
          try {
            if (item.maxOutputs !== undefined) this.#assertRoom(item.event, item.maxOutputs, now);
            if (items.length === 1) return { committed: this.#insert(item.event, item.spooled, now) };
            // One INSERT is atomic on its own: a small unlabelled output needs no savepoint.
            const committed = this.#insertAlone(item.event, item.spooled, now);
            if (committed) return { committed };
            return { committed: this.#commitTransaction(item.event, item.spooled, now) };
          } catch (error) {
            // An error that ended the whole transaction fails the batch rather than letting
            // the next items run outside it.
            if (!this.#db.inTransaction) throw error;
            return { error };
          }
        }),
      );
    } catch (error) {
      if (StorageFailureError.isInstance(error)) throw error;
      throw new StorageFailureError(`cannot open output database ${options.path}: ${String(error)}`, {
        cause: error,
      });
    }
    this.#blobs = new BlobDirectory(options.blobDir ?? `${options.path}.blobs`);
    this.#external =
      options.blobs === undefined
        ? undefined
        : new ExternalBlobs(
            options.blobs,
            (sha256) => this.#statements.fileShaUsed.get(sha256) !== undefined,
            {
              storeId: (this.#db.prepare('SELECT store_id FROM store_identity').get() as { store_id: string })
                .store_id,
              description: `SQLite ${resolve(options.path)}`,
              // The proof that a blob store whose marker is gone holds this store's bodies.
              ownBodies: async () => {
                const rows = this.#db
                  .prepare("SELECT sha256 FROM outputs WHERE storage = 'file' ORDER BY seq DESC LIMIT 16")
                  .all() as { sha256: string }[];
                return [...new Set(rows.map((row) => row.sha256))];
              },
            },
          );
    this.#sweep();
  }

  /**
   * Resolves once a blob store given as `blobs` is claimed for this store (see
   * `BlobStore.claim`); rejects with the reason it cannot be (another store's marker, a
   * missing bucket, a wrong key). Without `blobs` it resolves at once. `openDataPlane` waits for it.
   *
   * @example
   * ```ts
   * const store = new SqliteOutputStore({ path, blobs: new S3BlobStore({ bucket: 'wharf', prefix: 'team-a' }) });
   * await store.ready();
   * ```
   */
  async ready(): Promise<void> {
    await this.#external?.claimed;
  }

  /** The schema version of the open database. */
  get schemaVersion(): number {
    return (
      this.#db.prepare('SELECT MAX(version) AS version FROM schema_migrations').get() as { version: number }
    ).version;
  }

  async emit(event: OutputEvent): Promise<OutputRef> {
    return (await this.#emit(event, undefined)).ref;
  }

  /**
   * {@link emit} that also answers the stored record and whether this call created it, same
   * durability (the row is committed first). A new output's record is built from the row just
   * inserted, saving the `stat` round trip; a replayed key's record is read back. With
   * `maxOutputs` the spawn's quota is checked in the inserting transaction.
   *
   * @example
   * ```ts
   * const { ref, record, created } = await store.emitWithRecord(event, { maxOutputs: 16 });
   * console.log(created ? 'stored' : 'replayed', ref.outId, record.sizeBytes);
   * ```
   */
  async emitWithRecord(event: OutputEvent, options: EmitWithRecordOptions = {}): Promise<EmittedOutput> {
    const { ref, record } = await this.#emit(event, options.maxOutputs);
    if (record) return { ref, record, created: true };
    return { ref, record: await this.stat(ref), created: false };
  }

  async #emit(event: OutputEvent, maxOutputs: number | undefined): Promise<Committed> {
    this.#assertOpen();
    validateOutputEvent(event);
    const spooled = await spoolBody(event.content, {
      temps: this.#blobs,
      inlineThresholdBytes: this.#inlineThresholdBytes,
      maxBodyBytes: this.#maxBodyBytes,
      allowedRoots: this.#allowedRoots,
    });
    const external = spooled.kind === 'temp' ? this.#external : undefined;
    try {
      this.#assertOpen();
      if (external && spooled.kind === 'temp') await external.upload(spooled);
      return await this.#commit(event, spooled, maxOutputs);
    } finally {
      if (spooled.kind === 'temp') {
        this.#blobs.releaseTemp(spooled.tempPath);
        external?.settled(spooled.sha256);
      }
    }
  }

  async stat(ref: OutputRef): Promise<OutputRecord> {
    return rowToRecord(this.#liveRow(ref));
  }

  async get(ref: OutputRef): Promise<{ record: OutputRecord; body: Uint8Array }> {
    const row = this.#liveRow(ref);
    const record = rowToRecord(row);
    if (row.storage === 'inline') {
      const body = (this.#statements.body.get(row.out_id) as { body: Buffer | null } | undefined)?.body;
      return { record, body: new Uint8Array(body ?? Buffer.alloc(0)) };
    }
    try {
      if (this.#external) return { record, body: await this.#external.read(row.sha256) };
      return { record, body: new Uint8Array(await readFile(this.#blobs.pathOf(row.sha256))) };
    } catch (error) {
      throw this.#missingBody(ref, error);
    }
  }

  async openBody(ref: OutputRef, range?: ByteRange): Promise<OpenedBody> {
    const row = this.#liveRow(ref);
    const record = rowToRecord(row);
    const { start, end } = resolveRange(range, row.size_bytes);
    if (row.storage === 'inline') {
      const body =
        (this.#statements.body.get(row.out_id) as { body: Buffer | null } | undefined)?.body ??
        Buffer.alloc(0);
      const slice = body.subarray(start, end);
      return { record, start, end, stream: Readable.from(slice.byteLength > 0 ? [slice] : []) };
    }
    if (start === end) return { record, start, end, stream: Readable.from([]) };
    if (this.#external) {
      try {
        return { record, start, end, stream: await this.#external.store.open(row.sha256, { start, end }) };
      } catch (error) {
        throw this.#missingBody(ref, error);
      }
    }
    let handle: Awaited<ReturnType<typeof open>>;
    try {
      handle = await open(this.#blobs.pathOf(row.sha256), 'r');
    } catch (error) {
      throw this.#missingBody(ref, error);
    }
    const stream = handle.createReadStream({ start, end: end - 1, highWaterMark: 1 << 20 });
    return { record, start, end, stream };
  }

  async list(query: ListQuery = {}): Promise<ListPage> {
    this.#assertOpen();
    validateListQuery(query);
    const limit = pageLimit(query.limit);
    const after = query.cursor === undefined ? 0 : decodeCursor(query.cursor);
    const { where, parameters } = this.#filter(query, after);
    const statement = this.#cached(
      `SELECT ${recordColumns} FROM outputs WHERE ${where} ORDER BY seq LIMIT ?`,
    );
    const rows = statement.all(...parameters, limit + 1).map((row) => parseRow(row));
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      records: page.map(rowToRecord),
      ...(rows.length > limit && last ? { nextCursor: encodeCursor(last.seq) } : {}),
    };
  }

  async count(query: ListQuery = {}): Promise<number> {
    this.#assertOpen();
    validateListQuery(query);
    const { ownerId, runId, spawnId, labels } = query;
    if (
      ownerId !== undefined &&
      runId !== undefined &&
      spawnId !== undefined &&
      (labels === undefined || Object.keys(labels).length === 0)
    ) {
      return (this.#statements.countSpawn.get(ownerId, runId, spawnId, this.#now()) as { total: number })
        .total;
    }
    const { where, parameters } = this.#filter(query, 0);
    return (
      this.#cached(`SELECT COUNT(*) AS total FROM outputs WHERE ${where}`).get(...parameters) as {
        total: number;
      }
    ).total;
  }

  #filter(query: ListQuery, after: number): { where: string; parameters: (string | number)[] } {
    const clauses = ['seq > ?', '(expires_at IS NULL OR expires_at > ?)'];
    const parameters: (string | number)[] = [after, this.#now()];
    for (const [column, value] of [
      ['owner_id', query.ownerId],
      ['run_id', query.runId],
      ['spawn_id', query.spawnId],
    ] as const) {
      if (value === undefined) continue;
      clauses.push(`${column} = ?`);
      parameters.push(value);
    }
    for (const [key, value] of Object.entries(query.labels ?? {})) {
      clauses.push('out_id IN (SELECT out_id FROM output_labels WHERE key = ? AND value = ?)');
      parameters.push(key, value);
    }
    return { where: clauses.join(' AND '), parameters };
  }

  #cached(sql: string): Database.Statement {
    let statement = this.#listStatements.get(sql);
    if (!statement) {
      statement = this.#db.prepare(sql);
      this.#listStatements.set(sql, statement);
    }
    return statement;
  }

  async findByIdempotencyKey(
    scope: IdempotencyScope,
    idempotencyKey: string,
  ): Promise<OutputRef | undefined> {
    this.#assertOpen();
    validateKeyLookup(scope, idempotencyKey);
    const row = this.#byKey(scope, idempotencyKey) as
      | { out_id: string; expires_at: number | null }
      | undefined;
    if (!row || (row.expires_at !== null && row.expires_at <= this.#now())) return undefined;
    return { outId: row.out_id };
  }

  async delete(ref: OutputRef): Promise<boolean> {
    this.#assertOpen();
    try {
      return this.#db
        .transaction(() => this.#remove([{ outId: ref.outId, reason: 'deleted' }]).removed > 0)
        .immediate();
    } finally {
      this.#dropDoomed();
      await this.#external?.removals();
    }
  }

  async gc(policy: RetentionPolicy = {}): Promise<GcResult> {
    this.#assertOpen();
    if (policy.runId !== undefined) validateListQuery({ runId: policy.runId });
    const graceMs = orphanGraceMs(policy.orphanGraceMs);
    const now = this.#now();
    let result: Omit<GcResult, 'orphanBodies'>;
    try {
      result = this.#gcTransaction(policy, now);
    } finally {
      this.#dropDoomed();
      await this.#external?.removals();
    }
    const orphanBodies = await this.sweepOrphanBodies({ graceMs });
    return { ...result, orphanBodies };
  }

  #gcTransaction(policy: RetentionPolicy, now: number): Omit<GcResult, 'orphanBodies'> {
    return this.#db
      .transaction(() => {
        const removals: Removal[] = [];
        const cutoff = policy.olderThanMs === undefined ? Number.MIN_SAFE_INTEGER : now - policy.olderThanMs;
        for (const row of this.#statements.expired.all(now, cutoff) as { out_id: string }[]) {
          removals.push({ outId: row.out_id, reason: 'expired' });
        }
        if (policy.runId !== undefined) {
          for (const row of this.#statements.byRun.all(policy.runId) as { out_id: string }[]) {
            removals.push({ outId: row.out_id, reason: 'deleted' });
          }
        }
        const first = this.#remove(removals);
        let removed = first.removed;
        let freedBytes = first.freedBytes;
        if (policy.maxTotalBytes !== undefined) {
          let total = (this.#statements.totalBytes.get() as { total: number | null }).total ?? 0;
          const evictions: Removal[] = [];
          for (const row of this.#statements.oldestFirst.iterate() as Iterable<{
            out_id: string;
            size_bytes: number;
          }>) {
            if (total <= policy.maxTotalBytes) break;
            evictions.push({ outId: row.out_id, reason: 'evicted' });
            total -= row.size_bytes;
          }
          const second = this.#remove(evictions);
          removed += second.removed;
          freedBytes += second.freedBytes;
        }
        return { removed, freedBytes };
      })
      .immediate();
  }

  /**
   * Removes body files (or, with `blobs`, bodies in that blob store) that no row references and
   * that were last written longer ago than `graceMs` (default one hour). A blob store is first
   * proven this store's (its marker), so another store's bodies are never removed. Local body
   * files are checked and removed under the write lock; an unreferenced one can only be left by
   * a process killed after publishing it, and opening the store sweeps those too.
   *
   * @example
   * ```ts
   * const { removed, freedBytes } = await store.sweepOrphanBodies({ graceMs: 86_400_000 });
   * ```
   */
  async sweepOrphanBodies(options: OrphanSweepOptions = {}): Promise<OrphanSweepResult> {
    this.#assertOpen();
    const cutoff = this.#now() - orphanGraceMs(options.graceMs);
    const dryRun = options.dryRun === true;
    const external = this.#external;
    if (!external) return this.#sweepLocal(cutoff, dryRun);
    let removed = 0;
    let freedBytes = 0;
    await external.claimed;
    await external.store.claim(external.owner);
    for await (const blob of external.store.list()) {
      if (blob.modifiedMs > cutoff || external.inUse(blob.sha256)) continue;
      this.#assertOpen();
      if (this.#statements.fileShaUsed.get(blob.sha256)) continue;
      if (!dryRun) await external.store.remove(blob.sha256);
      removed += 1;
      freedBytes += blob.sizeBytes;
    }
    return { removed, freedBytes };
  }

  #sweepLocal(cutoff: number, dryRun: boolean): OrphanSweepResult {
    return this.#db
      .transaction(() => {
        let removed = 0;
        let freedBytes = 0;
        for (const sha256 of this.#blobs.storedShas()) {
          if (this.#statements.fileShaUsed.get(sha256)) continue;
          const stats = statSync(this.#blobs.pathOf(sha256), { throwIfNoEntry: false });
          // At the clock's resolution (whole milliseconds): a body written within the sweep's own
          // millisecond is not younger than a grace of 0.
          if (stats === undefined || Math.floor(stats.mtimeMs) > cutoff) continue;
          if (!dryRun) this.#blobs.remove(sha256);
          removed += 1;
          freedBytes += stats.size;
        }
        return { removed, freedBytes };
      })
      .immediate();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#flush();
    this.#closed = true;
    // Emits already queued for the writer thread are committed and answered before it stops.
    while (this.#writerBatches.size > 0) await Promise.all(this.#writerBatches);
    await this.#writer?.close();
    await this.#external?.removals();
    this.#db.close();
    await this.#external?.store.close();
  }

  /**
   * Queues a commit. Commits queued in the same event-loop turn share one write transaction
   * (each in its own savepoint), so concurrent emits pay for one commit between them. With the
   * writer thread a turn's emits go as soon as `writerBatchEarly` of them wait.
   */
  #commit(event: OutputEvent, spooled: SpooledBody, maxOutputs: number | undefined): Promise<Committed> {
    return new Promise((resolve, reject) => {
      this.#pending.push({ event, spooled, maxOutputs, resolve, reject });
      if (this.#writer && this.#pending.length >= writerBatchEarly) {
        this.#flush();
        return;
      }
      if (!this.#flushScheduled) {
        this.#flushScheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  #flush(): void {
    try {
      this.#flushPending();
    } finally {
      this.#dropDoomed();
    }
  }

  #flushPending(): void {
    this.#flushScheduled = false;
    let items = this.#pending.splice(0, this.#pending.length);
    if (items.length === 0) return;
    if (this.#writer && !this.#closed) {
      const local: PendingCommit[] = [];
      for (const item of items) (item.spooled.kind === 'inline' ? this.#writerQueue : local).push(item);
      this.#sendToWriter(this.#writer);
      items = local;
      if (items.length === 0) return;
    }
    const [single] = items;
    // A quota is counted in the transaction of its insert, so it never takes the autocommit path.
    if (items.length === 1 && single && single.maxOutputs === undefined && !this.#closed) {
      try {
        const committed = this.#insertAlone(single.event, single.spooled, this.#now());
        if (committed) {
          single.resolve(committed);
          return;
        }
      } catch (error) {
        single.reject(
          OutputStoreError.isInstance(error)
            ? error
            : new StorageFailureError(`cannot store output: ${String(error)}`, { cause: error }),
        );
        return;
      }
    }
    let outcomes: { committed?: Committed; error?: unknown }[];
    try {
      if (this.#closed) throw new StorageFailureError('the output store is closed');
      outcomes = this.#batchTransaction.immediate(items, this.#now());
    } catch (error) {
      outcomes = items.map(() => ({ error }));
    }
    for (const [index, item] of items.entries()) {
      const outcome = outcomes[index];
      if (outcome?.committed) {
        item.resolve(outcome.committed);
        continue;
      }
      const error = outcome?.error;
      if (item.spooled.kind === 'temp') this.#doomed.add(item.spooled.sha256);
      item.reject(
        OutputStoreError.isInstance(error)
          ? error
          : new StorageFailureError(`cannot store output: ${String(error)}`, { cause: error }),
      );
    }
  }

  /**
   * Sends the emits queued for the writer thread as one batch, unless `writerBatchesInFlight`
   * batches are in flight (the first answer sends the next), and settles each emit from its
   * outcome once the batch committed.
   */
  #sendToWriter(writer: RowWriter): void {
    if (this.#writerBatches.size >= writerBatchesInFlight || this.#writerQueue.length === 0) return;
    const batch = this.#writerQueue.splice(0, this.#writerQueue.length);
    const now = this.#now();
    const rows = batch.map((item) => rowValues(item.event, item.spooled, now, newOutId()));
    let size = 0;
    for (const values of rows) size += values.body?.byteLength ?? 0;
    const bodies = new Uint8Array(size);
    let offset = 0;
    const items = batch.map((item, index): RowWriterItem => {
      const values = rows[index] as RowValues;
      const parameters: unknown[] = insertParameters(values);
      const body = values.body;
      const packed = body ? ([offset, body.byteLength] as const) : undefined;
      if (body) {
        bodies.set(body, offset);
        offset += body.byteLength;
        parameters[bodyParameter] = null;
      }
      return {
        parameters,
        ...(packed ? { body: packed } : {}),
        labels: Object.entries(item.event.labels ?? {}),
        ...(item.maxOutputs === undefined ? {} : { maxOutputs: item.maxOutputs }),
      };
    });
    const written = writer.write(now, items, bodies.buffer);
    const settled: Promise<void> = written
      .then(
        ({ outcomes, doomed }) => {
          for (const sha256 of doomed) this.#doomed.add(sha256);
          for (const [index, item] of batch.entries()) {
            const outcome = outcomes[index];
            const values = rows[index];
            if (outcome && values && 'created' in outcome)
              item.resolve({
                ref: { outId: values.out_id },
                record: insertedRecord(values, item.event.labels ?? {}),
              });
            else if (outcome && 'outId' in outcome) item.resolve({ ref: { outId: outcome.outId } });
            else item.reject(writerError(outcome));
          }
          this.#dropDoomed();
        },
        (error: unknown) => {
          for (const item of batch) item.reject(error);
        },
      )
      .finally(() => {
        this.#writerBatches.delete(settled);
        this.#sendToWriter(writer);
      });
    this.#writerBatches.add(settled);
  }

  /**
   * A lone small output without labels is one autocommit INSERT; the unique (owner, run,
   * spawn, key) constraint keeps retries and other processes from duplicating it. Returns undefined when
   * the full transaction is needed (labels, a body file, an expired holder of the key).
   */
  #insertAlone(event: OutputEvent, spooled: SpooledBody, now: number): Committed | undefined {
    if (spooled.kind !== 'inline' || (event.labels && Object.keys(event.labels).length > 0)) return undefined;
    const outId = newOutId();
    const values = rowValues(event, spooled, now, outId);
    if (this.#statements.insertUnlessKeyed.run(...insertParameters(values)).changes === 1)
      return { ref: { outId }, record: insertedRecord(values, {}) };
    const existing = this.#byKey(event.producer, event.idempotencyKey) as
      | { out_id: string; sha256: string; expires_at: number | null }
      | undefined;
    if (!existing || (existing.expires_at !== null && existing.expires_at <= now)) return undefined;
    if (existing.sha256 !== spooled.sha256)
      throw new IdempotencyConflictError(event.idempotencyKey, existing.out_id);
    return { ref: { outId: existing.out_id } };
  }

  /**
   * Inside the write transaction: refuses a new output of a spawn that already holds
   * `maxOutputs` live ones. A full spawn's key is looked up only then: a live output under it
   * is a replay, left to the insert to answer (its ref, or a conflict for other bytes).
   */
  #assertRoom(event: OutputEvent, maxOutputs: number, now: number): void {
    const { ownerId, runId, spawnId } = event.producer;
    const { total } = this.#statements.countSpawn.get(ownerId, runId, spawnId, now) as { total: number };
    if (total < maxOutputs) return;
    const existing = this.#byKey(event.producer, event.idempotencyKey) as
      | { out_id: string; expires_at: number | null }
      | undefined;
    if (existing && (existing.expires_at === null || existing.expires_at > now)) return;
    throw new OutputForbiddenError(`this spawn may store at most ${maxOutputs} outputs`);
  }

  /** Body of the emit transaction: idempotency check, publish the body file, insert the row. */
  #insert(event: OutputEvent, spooled: SpooledBody, now: number): Committed {
    const { producer } = event;
    const existing = this.#byKey(producer, event.idempotencyKey) as
      | { out_id: string; sha256: string; expires_at: number | null }
      | undefined;
    if (existing) {
      if (existing.expires_at === null || existing.expires_at > now) {
        if (existing.sha256 !== spooled.sha256)
          throw new IdempotencyConflictError(event.idempotencyKey, existing.out_id);
        return { ref: { outId: existing.out_id } };
      }
      this.#remove([{ outId: existing.out_id, reason: 'expired' }]);
    }
    if (spooled.kind === 'temp' && !this.#external) this.#blobs.publish(spooled.tempPath, spooled.sha256);
    const outId = newOutId();
    const labels = event.labels ?? {};
    const values = rowValues(event, spooled, now, outId);
    this.#statements.insert.run(...insertParameters(values));
    for (const [key, value] of Object.entries(labels)) this.#statements.insertLabel.run(key, value, outId);
    return { ref: { outId }, record: insertedRecord(values, labels) };
  }

  /**
   * Deletes rows (inside the caller's transaction) and tombstones them. Body files are only
   * noted: unlinking one before the transaction commits would leave a listed record without
   * its body if the process died in between (`#dropDoomed` unlinks them after the commit).
   */
  #remove(removals: readonly Removal[]): Omit<GcResult, 'orphanBodies'> {
    let removed = 0;
    let freedBytes = 0;
    const now = this.#now();
    for (const removal of removals) {
      const row = this.#statements.removeRow.get(removal.outId) as
        | { sha256: string; storage: string; size_bytes: number }
        | undefined;
      if (!row) continue;
      removed += 1;
      freedBytes += row.size_bytes;
      this.#statements.removeLabels.run(removal.outId);
      this.#statements.tombstone.run(removal.outId, removal.reason, now);
      if (row.storage === 'file') this.#doomed.add(row.sha256);
    }
    return { removed, freedBytes };
  }

  /**
   * After a commit: unlinks the noted body files no row references any more. Runs under the
   * write lock, so no other writer can publish a row for the same bytes in between; a crash
   * here only leaves unreferenced files, which the next open's sweep removes.
   */
  #dropDoomed(): void {
    if (this.#doomed.size === 0 || this.#closed) return;
    const shas = [...this.#doomed];
    this.#doomed.clear();
    const external = this.#external;
    try {
      this.#db
        .transaction(() => {
          for (const sha256 of shas) {
            if (this.#statements.fileShaUsed.get(sha256)) continue;
            if (external) external.scheduleRemoval(sha256);
            else this.#blobs.remove(sha256);
          }
        })
        .immediate();
    } catch {
      // The next open's sweep removes them.
    }
  }

  /** Removes dead writers' temp files and body files no row references, under the write lock. */
  #sweep(): void {
    this.#db
      .transaction(() => {
        this.#blobs.removeDeadTemps();
        for (const sha256 of this.#blobs.storedShas()) {
          if (!this.#statements.fileShaUsed.get(sha256)) this.#blobs.remove(sha256);
        }
      })
      .immediate();
  }

  /** The row holding an idempotency key in its scope (owner, run, spawn), expired or not. */
  #byKey(scope: IdempotencyScope, idempotencyKey: string): unknown {
    return this.#statements.byKey.get(scope.ownerId, scope.runId, scope.spawnId, idempotencyKey);
  }

  #liveRow(ref: OutputRef): OutputRow {
    this.#assertOpen();
    const raw = this.#statements.record.get(ref.outId);
    if (raw === undefined) {
      const tombstone = this.#statements.tombstoneOf.get(ref.outId) as { reason: NotFoundReason } | undefined;
      throw new OutputNotFoundError(ref.outId, tombstone?.reason ?? 'unknown');
    }
    const row = parseRow(raw);
    if (row.expires_at !== null && row.expires_at <= this.#now())
      throw new OutputNotFoundError(ref.outId, 'expired');
    return row;
  }

  #missingBody(ref: OutputRef, error: unknown): Error {
    if (OutputStoreError.isInstance(error) && !BlobNotFoundError.isInstance(error)) return error;
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || BlobNotFoundError.isInstance(error)) {
      const tombstone = this.#statements.tombstoneOf.get(ref.outId) as { reason: NotFoundReason } | undefined;
      if (tombstone) return new OutputNotFoundError(ref.outId, tombstone.reason);
    }
    return new StorageFailureError(`body file of ${ref.outId} is unreadable: ${String(error)}`, {
      cause: error,
    });
  }

  #assertOpen(): void {
    if (this.#closed) throw new StorageFailureError('the output store is closed');
  }
}

/**
 * With the writer thread: emits waiting in one turn are sent as a batch as soon as this many
 * wait, not only at the turn's end, so the thread commits them while the event loop reads the
 * next requests; and up to {@link writerBatchesInFlight} batches are in flight at once (the
 * thread commits them in order). Measured on the intake bench (16 clients, a token per POST):
 * 11.6–11.7k → 13.3–13.8k req/s against one batch a turn, one at a time.
 */
const writerBatchEarly = 8;
/** See {@link writerBatchEarly}. */
const writerBatchesInFlight = 2;

/** Where a row's body sits among its insert parameters. */
const bodyParameter = insertedColumns.indexOf('body');

/** The typed error of a writer thread's refusal of one emit. */
function writerError(outcome: RowWriterOutcome | undefined): OutputStoreError {
  if (outcome && 'conflict' in outcome)
    return new IdempotencyConflictError(outcome.conflict.idempotencyKey, outcome.conflict.existingOutId);
  if (outcome && 'forbidden' in outcome) return new OutputForbiddenError(outcome.forbidden);
  return new StorageFailureError(
    `cannot store output: ${outcome && 'failure' in outcome ? outcome.failure : 'the writer thread gave no answer'}`,
  );
}

/** The record of a row just inserted, from its values (what `stat` would read back). */
function insertedRecord(values: RowValues, labels: Readonly<Record<string, string>>): OutputRecord {
  return recordOf(values, { ...labels });
}
