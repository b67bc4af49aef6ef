import { Readable } from 'node:stream';
import pg from 'pg';
import type { BlobStore, StoredBlob } from '../blobs/blob-store.js';
import { LocalBlobStore } from '../blobs/local-blob-store.js';
import type { BlobStoreOwner } from '../blobs/store-marker.js';
import { resolveRange } from '../byte-range.js';
import { pageLimit } from '../cursor.js';
import {
  BlobNotFoundError,
  IdempotencyConflictError,
  InvalidOutputEventError,
  InvalidStoreOptionError,
  type NotFoundReason,
  OutputForbiddenError,
  OutputNotFoundError,
  StorageFailureError,
  StoreConnectionError,
} from '../errors.js';
import { newOutId } from '../ids.js';
import {
  insertedColumns,
  insertParameters,
  type OutputRow,
  recordColumns,
  rowToRecord,
  rowValues,
} from '../output-row.js';
import { OutputStoreError } from '../output-store-error.js';
import { orphanGraceMs } from '../retention.js';
import { type SpooledBody, spoolBody, type TempArea } from '../spool-body.js';
import { openSpoolFolder } from '../spool-folder.js';
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
import {
  type CommitCursor,
  decodeCommitCursor,
  encodeCommitCursor,
  nextCommitCursor,
  runningTransactions,
} from './commit-cursor.js';
import { connectionFailure, postgresServer } from './connection-failure.js';
import { blobLockKey, lockKey32, lockKey64 } from './lock-keys.js';
import { latestPostgresSchemaVersion, migratePostgres } from './migrations.js';
import { parsePostgresRow, toNumber } from './row.js';

/** `$1, $2, …` for {@link insertedColumns}, the labels cast to jsonb. */
const insertPlaceholders = insertedColumns
  .map((column, index) => `$${index + 1}${column === 'labels' ? '::jsonb' : ''}`)
  .join(', ');

/**
 * Options of {@link PostgresOutputStore}. Give `connectionString` or `pool`.
 *
 * @example
 * ```ts
 * const options: PostgresOutputStoreOptions = {
 *   connectionString: 'postgresql://wharf@db:5432/wharf',
 *   blobs: new LocalBlobStore({ root: '/srv/wharf/blobs' }),
 * };
 * ```
 */
export interface PostgresOutputStoreOptions {
  /** Where the database is; the store opens (and on close ends) a pool of its own. */
  readonly connectionString?: string;
  /** A pool the caller owns (and ends); the store never ends it. */
  readonly pool?: pg.Pool;
  /**
   * Where bodies over the inline threshold go; the store closes it on `close()`. One blob store
   * (directory, bucket prefix) per schema.
   */
  readonly blobs: BlobStore;
  /** The PostgreSQL schema of the store's tables, default `wharf`; created when missing. */
  readonly schema?: string;
  /** Bodies up to this size are stored in the row, default 64 KiB. */
  readonly inlineThresholdBytes?: number;
  /** Largest accepted body, default 4 GiB. */
  readonly maxBodyBytes?: number;
  /** Directories `file` content may come from; none by default. */
  readonly allowedRoots?: readonly string[];
  /**
   * Where large bodies are spooled and hashed before upload: the blob store's own temp
   * folder for a {@link LocalBlobStore} (so storing is a rename), else a fresh private folder
   * of this store under the system temp directory (mode 0700, removed on close). A folder
   * given here is created 0700 when missing and refused when it is a symbolic link, another
   * user's, or writable by others. Spooled files are 0600.
   */
  readonly spoolDir?: string;
  /** Size of the store's own pool, default 10. */
  readonly maxConnections?: number;
  /**
   * How long opening the store waits for its first connection to the server, default
   * 10 000 ms (then it fails: unreachable). Later, a busy pool is waited for as long as it takes.
   */
  readonly connectTimeoutMs?: number;
  /** Clock in epoch milliseconds (tests). */
  readonly now?: () => number;
}

type Queryable = pg.Pool | pg.PoolClient;
/** What one EMIT's insert did: the ref, the row when it inserted one (if asked), and whether it did. */
type Inserted = { ref: OutputRef; row?: OutputRow; created: boolean };
/** How an EMIT is stored: within a spawn quota or not, answering the inserted row or not. */
type EmitMode = { readonly maxOutputs: number | undefined; readonly withRecord: boolean };
type Removed = { out_id: string; sha256: string; storage: string; size_bytes: unknown };

async function readAll(stream: Readable): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return new Uint8Array(Buffer.concat(chunks));
}

const schemaPattern = /^[a-z_][a-z0-9_]{0,62}$/;

function positiveInteger(
  value: number | undefined,
  fallback: number,
  option: string,
  minimum: number,
): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < minimum)
    throw new InvalidStoreOptionError(option, `must be an integer of at least ${minimum}`);
  return value;
}

/**
 * An {@link OutputStore} on PostgreSQL, for several workers on several machines sharing one
 * store. Small bodies live in the row (`bytea`); larger ones are spooled to a local temp
 * file, hashed, stored in a {@link BlobStore} under their SHA-256 and only then is the row
 * committed, so a listed output always has its whole body. The schema is versioned and
 * migrated under an advisory lock; an EMIT is one `INSERT … ON CONFLICT DO NOTHING` on the
 * unique (run, spawn, owner, idempotency key), so retries from any process settle on one ref.
 *
 * Removing a body is guarded: an EMIT holds a shared advisory lock on its body's address
 * from before the upload until its row is committed, and a removal takes that lock
 * exclusively (or skips the body) and removes it only if no row references it. `gc` also
 * sweeps bodies no row references (left by an EMIT that died between upload and commit).
 *
 * @example
 * ```ts
 * import { LocalBlobStore } from '@wharf/output-store';
 * import { PostgresOutputStore } from '@wharf/output-store/postgres';
 *
 * const blobs = new LocalBlobStore({ root: '/srv/wharf/blobs' });
 * const store = await PostgresOutputStore.open({ connectionString: process.env.DATABASE_URL, blobs });
 * const ref = await store.emit({
 *   producer: { ownerId: 'o', runId: 'r', spawnId: 's' },
 *   content: { kind: 'text', text: 'hello' }, idempotencyKey: 'k1',
 * });
 * await store.close(); // closes `blobs` too
 * ```
 */
export class PostgresOutputStore implements OutputStore {
  readonly #pool: pg.Pool;
  readonly #connectionString: string | undefined;
  readonly #connectTimeoutMs: number;
  readonly #ownsPool: boolean;
  readonly #blobs: BlobStore;
  readonly #temps: TempArea;
  readonly #disposeSpool: () => void;
  readonly #schema: string;
  readonly #q: string;
  readonly #inlineThresholdBytes: number;
  readonly #maxBodyBytes: number;
  readonly #allowedRoots: readonly string[];
  readonly #now: () => number;
  readonly #blobLockSpace: number;
  readonly #quotaLockSpace: number;
  readonly #ready: Promise<void>;
  /** Resolves once the blob store is proven this store's (claimed with the store's id). */
  readonly #ownership: Promise<BlobStoreOwner>;
  #closed = false;

  /** Opens a store and waits until its schema is migrated (failing if it cannot be). */
  static async open(options: PostgresOutputStoreOptions): Promise<PostgresOutputStore> {
    const store = new PostgresOutputStore(options);
    try {
      await store.ready();
    } catch (error) {
      await store.close().catch(() => undefined);
      throw error;
    }
    return store;
  }

  constructor(options: PostgresOutputStoreOptions) {
    const schema = options.schema ?? 'wharf';
    if (!schemaPattern.test(schema))
      throw new InvalidStoreOptionError(
        'schema',
        'must be a lower-case SQL identifier ([a-z_][a-z0-9_]*, at most 63)',
      );
    if ((options.pool === undefined) === (options.connectionString === undefined))
      throw new InvalidStoreOptionError('connectionString', 'or pool must be given (exactly one of them)');
    if (typeof options.blobs?.putFile !== 'function')
      throw new InvalidStoreOptionError('blobs', 'must be a BlobStore (for example a LocalBlobStore)');
    this.#inlineThresholdBytes = positiveInteger(
      options.inlineThresholdBytes,
      64 * 1024,
      'inlineThresholdBytes',
      0,
    );
    this.#maxBodyBytes = positiveInteger(options.maxBodyBytes, 4 * 2 ** 30, 'maxBodyBytes', 1);
    const maxConnections = positiveInteger(options.maxConnections, 10, 'maxConnections', 1);
    this.#connectTimeoutMs = positiveInteger(options.connectTimeoutMs, 10_000, 'connectTimeoutMs', 1);
    this.#connectionString = options.connectionString;
    this.#schema = schema;
    this.#q = `"${schema}"`;
    this.#blobs = options.blobs;
    this.#allowedRoots = options.allowedRoots ?? [];
    this.#now = options.now ?? Date.now;
    this.#blobLockSpace = lockKey32(`blob:${schema}`);
    this.#quotaLockSpace = lockKey32(`quota:${schema}`);
    if (options.spoolDir === undefined && options.blobs instanceof LocalBlobStore) {
      this.#temps = options.blobs;
      this.#disposeSpool = () => undefined;
    } else {
      const spool = openSpoolFolder(options.spoolDir);
      this.#temps = spool.directory;
      this.#disposeSpool = spool.dispose;
    }
    if (options.pool) {
      this.#pool = options.pool;
      this.#ownsPool = false;
    } else {
      this.#pool = new pg.Pool({ connectionString: options.connectionString, max: maxConnections });
      // An idle connection the server closed must not crash the process; the next query reconnects.
      this.#pool.on('error', () => undefined);
      this.#ownsPool = true;
    }
    // Nor may a checked-out one (the pool listens only to idle ones): a server restarted while
    // a body uploads under its lock would end the process with an unhandled 'error' event. The
    // query in flight on it fails on its own, and the connection is released broken.
    this.#pool.on('connect', (client) => {
      client.on('error', () => undefined);
    });
    this.#ownership = this.#migrate().then((owner) => this.#claimBlobs(owner));
    this.#ready = this.#ownership.then(() => undefined);
    this.#ready.catch(() => undefined);
  }

  /** Resolves once the schema is migrated; rejects with the reason it could not be. */
  async ready(): Promise<void> {
    await this.#ready;
  }

  /** The schema version of the database. */
  async schemaVersion(): Promise<number> {
    await this.#open();
    const { rows } = await this.#pool.query(
      `SELECT MAX(version) AS version FROM ${this.#q}.schema_migrations`,
    );
    return toNumber(rows[0]?.version);
  }

  async emit(event: OutputEvent): Promise<OutputRef> {
    return (await this.#emit(event, { maxOutputs: undefined, withRecord: false })).ref;
  }

  /**
   * {@link emit} that also answers the stored record and whether this call created it, same
   * durability (the row is committed first): a new output's record comes back from its
   * `INSERT … RETURNING`, a replayed key's is read. With `maxOutputs` the spawn's live outputs
   * are counted in the transaction that inserts the row, under a transaction-level advisory
   * lock of that spawn, so the quota holds for any number of concurrent emits from any number
   * of processes sharing the database.
   *
   * @example
   * ```ts
   * const { ref, record, created } = await store.emitWithRecord(event, { maxOutputs: 16 });
   * ```
   */
  async emitWithRecord(event: OutputEvent, options: EmitWithRecordOptions = {}): Promise<EmittedOutput> {
    const { ref, row, created } = await this.#emit(event, {
      maxOutputs: options.maxOutputs,
      withRecord: true,
    });
    return { ref, created, record: row ? rowToRecord(row) : await this.stat(ref) };
  }

  async #emit(event: OutputEvent, mode: EmitMode): Promise<Inserted> {
    await this.#open();
    validateOutputEvent(event);
    const { maxOutputs } = mode;
    if (maxOutputs !== undefined && (!Number.isSafeInteger(maxOutputs) || maxOutputs < 1))
      throw new InvalidOutputEventError('maxOutputs', 'must be a positive integer');
    const spooled = await spoolBody(event.content, {
      temps: this.#temps,
      inlineThresholdBytes: this.#inlineThresholdBytes,
      maxBodyBytes: this.#maxBodyBytes,
      allowedRoots: this.#allowedRoots,
    });
    try {
      this.#assertOpen();
      if (spooled.kind === 'inline')
        return await this.#guard('cannot store output', () => this.#store(undefined, event, spooled, mode));
      return await this.#emitFile(event, spooled, mode);
    } finally {
      if (spooled.kind === 'temp') this.#temps.releaseTemp(spooled.tempPath);
    }
  }

  /**
   * Inserts an EMIT's row on `client` (else on the pool). With a quota, in one transaction: the
   * spawn's advisory lock, its count, then the insert.
   */
  async #store(
    client: pg.PoolClient | undefined,
    event: OutputEvent,
    spooled: SpooledBody,
    mode: EmitMode,
  ): Promise<Inserted> {
    const { maxOutputs } = mode;
    if (maxOutputs === undefined) return this.#insert(client ?? this.#pool, event, spooled, mode.withRecord);
    return this.#transaction(async (db) => {
      await this.#assertRoom(db, event, maxOutputs);
      return this.#insert(db, event, spooled, mode.withRecord);
    }, client);
  }

  /**
   * Inside the inserting transaction: waits for the spawn's advisory lock (held by any other
   * emit of that spawn until it commits), then refuses a new output of a spawn that already
   * holds `maxOutputs` live ones. A live output under the event's key is a replay, left to the
   * insert to answer (its ref, or a conflict for other bytes).
   */
  async #assertRoom(db: pg.PoolClient, event: OutputEvent, maxOutputs: number): Promise<void> {
    const { ownerId, runId, spawnId } = event.producer;
    await db.query('SELECT pg_advisory_xact_lock($1, $2)', [
      this.#quotaLockSpace,
      lockKey32(JSON.stringify([ownerId, runId, spawnId])),
    ]);
    const now = this.#now();
    const { rows } = await db.query({
      name: `wharf:${this.#schema}:count-spawn`,
      text: `SELECT COUNT(*) AS total FROM ${this.#q}.outputs
             WHERE run_id = $1 AND spawn_id = $2 AND owner_id = $3 AND (expires_at IS NULL OR expires_at > $4)`,
      values: [runId, spawnId, ownerId, now],
    });
    if (toNumber(rows[0]?.total) < maxOutputs) return;
    const existing = await this.#byKey(db, event.producer, event.idempotencyKey);
    if (existing && (existing.expiresAt === null || existing.expiresAt > now)) return;
    throw new OutputForbiddenError(`this spawn may store at most ${maxOutputs} outputs`);
  }

  async stat(ref: OutputRef): Promise<OutputRecord> {
    return rowToRecord(await this.#liveRow(ref, false));
  }

  async get(ref: OutputRef): Promise<{ record: OutputRecord; body: Uint8Array }> {
    const row = await this.#liveRow(ref, true);
    const record = rowToRecord(row);
    if (row.storage === 'inline') return { record, body: new Uint8Array(row.body ?? Buffer.alloc(0)) };
    try {
      return { record, body: await readAll(await this.#blobs.open(row.sha256)) };
    } catch (error) {
      throw await this.#missingBody(ref, error);
    }
  }

  async openBody(ref: OutputRef, range?: ByteRange): Promise<OpenedBody> {
    // A range of a body in the row is cut by the database: a 32-byte record of a list's item
    // index is not worth the whole index on the wire (hex-encoded, twice its size).
    const slice = range === undefined ? undefined : rowSlice(range);
    const row = await this.#liveRow(ref, slice ?? true);
    const record = rowToRecord(row);
    const { start, end } = resolveRange(range, row.size_bytes);
    if (row.storage === 'inline') {
      const body = row.body ?? Buffer.alloc(0);
      const bytes = slice === undefined ? body.subarray(start, end) : body.subarray(0, end - start);
      return { record, start, end, stream: Readable.from(bytes.byteLength > 0 ? [bytes] : []) };
    }
    if (start === end) return { record, start, end, stream: Readable.from([]) };
    try {
      return { record, start, end, stream: await this.#blobs.open(row.sha256, { start, end }) };
    } catch (error) {
      throw await this.#missingBody(ref, error);
    }
  }

  /**
   * Records oldest first, in the order their inserts committed for good: by transaction id
   * (`xid8`), then `seq`. `seq` alone is no cursor here: rows of concurrent transactions
   * commit out of `seq` order, and a cursor past a row committed early would skip a smaller
   * `seq` committed later. The cursor carries the transactions still running below its
   * position when the page was read, and the next page also returns the rows they have
   * committed since, so resuming from a cursor never skips a committed record (see
   * `commit-cursor.ts`).
   */
  async list(query: ListQuery = {}): Promise<ListPage> {
    await this.#open();
    validateListQuery(query);
    const limit = pageLimit(query.limit);
    const from = query.cursor === undefined ? undefined : decodeCommitCursor(query.cursor);
    const { where, parameters } = this.#filter(query);
    const values: unknown[] = [...parameters];
    const columns = `${recordColumns}, xid`;
    // The first page has no position to compare: a condition every row meets would let the
    // planner AND the whole commit index into a label lookup's bitmap, reading every row's
    // entry for each list (a cost growing with the table, paid by each evidence write).
    let after = '';
    if (from !== undefined) {
      values.push(from.xid.toString(), from.seq);
      after = ` AND (xid, seq) > ($${values.length - 1}::xid8, $${values.length}::bigint)`;
    }
    let source = `SELECT ${columns} FROM ${this.#q}.outputs
      WHERE ${where}${after}
      ORDER BY xid, seq LIMIT ${limit + 1}`;
    const position = from ?? { pending: [] };
    if (position.pending.length > 0) {
      values.push(
        position.pending.map((entry) => entry.xid.toString()),
        position.pending.map((entry) => entry.seq),
      );
      source = `(${source}) UNION ALL (
        SELECT ${columns} FROM ${this.#q}.outputs
          JOIN unnest($${values.length - 1}::xid8[], $${values.length}::bigint[]) AS late(late_xid, late_seq)
          ON xid = late_xid AND seq > late_seq
        WHERE ${where})`;
    }
    const { rows } = await this.#guard('cannot list outputs', () =>
      this.#pool.query(
        `SELECT page.*, pg_current_snapshot()::text AS snapshot FROM (${source}) page
         ORDER BY page.xid, page.seq LIMIT ${limit + 1}`,
        values,
      ),
    );
    const page = rows.slice(0, limit) as Record<string, unknown>[];
    const records = page.map((row) => rowToRecord(parsePostgresRow(row)));
    if (rows.length <= limit) return { records };
    const next: CommitCursor = nextCommitCursor(
      from,
      page.map((row) => ({ xid: BigInt(String(row.xid)), seq: toNumber(row.seq) })),
      runningTransactions(String((rows[0] as Record<string, unknown>).snapshot)),
    );
    return { records, nextCursor: encodeCommitCursor(next) };
  }

  async count(query: ListQuery = {}): Promise<number> {
    await this.#open();
    validateListQuery(query);
    const { where, parameters } = this.#filter(query);
    const { rows } = await this.#guard('cannot count outputs', () =>
      this.#pool.query(`SELECT COUNT(*) AS total FROM ${this.#q}.outputs WHERE ${where}`, parameters),
    );
    return toNumber(rows[0]?.total);
  }

  async findByIdempotencyKey(
    scope: IdempotencyScope,
    idempotencyKey: string,
  ): Promise<OutputRef | undefined> {
    await this.#open();
    validateKeyLookup(scope, idempotencyKey);
    const existing = await this.#guard('cannot look up the key', () =>
      this.#byKey(this.#pool, scope, idempotencyKey),
    );
    if (!existing || (existing.expiresAt !== null && existing.expiresAt <= this.#now())) return undefined;
    return { outId: existing.outId };
  }

  async delete(ref: OutputRef): Promise<boolean> {
    await this.#open();
    const removed = await this.#guard('cannot delete output', () =>
      this.#removeRows(this.#pool, [ref.outId], 'deleted'),
    );
    await this.#dropUnreferenced(removed.doomed);
    return removed.removed > 0;
  }

  async gc(policy: RetentionPolicy = {}): Promise<GcResult> {
    await this.#open();
    if (policy.runId !== undefined) validateListQuery({ runId: policy.runId });
    const now = this.#now();
    const result = await this.#guard('cannot apply retention', () =>
      this.#transaction(async (client) => {
        // One gc at a time per schema: the eviction pass reads the total it then cuts to.
        await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [lockKey64(`gc:${this.#schema}`)]);
        const expired = await client.query<{ out_id: string }>(
          `SELECT out_id FROM ${this.#q}.outputs
           WHERE expires_at <= $1 OR ($2::bigint IS NOT NULL AND created_at < $2::bigint)`,
          [now, policy.olderThanMs === undefined ? null : now - policy.olderThanMs],
        );
        const first = await this.#removeRows(
          client,
          expired.rows.map((row) => row.out_id),
          'expired',
        );
        let removed = first.removed;
        let freedBytes = first.freedBytes;
        const doomed = [...first.doomed];
        const steps: [string, unknown[], NotFoundReason][] = [];
        if (policy.runId !== undefined)
          steps.push([`SELECT out_id FROM ${this.#q}.outputs WHERE run_id = $1`, [policy.runId], 'deleted']);
        if (policy.maxTotalBytes !== undefined)
          // Oldest first until the total holds: a row goes when it and every newer row exceed the cap.
          steps.push([
            `SELECT out_id FROM (
               SELECT out_id, SUM(size_bytes) OVER (ORDER BY seq DESC ROWS UNBOUNDED PRECEDING) AS newer
               FROM ${this.#q}.outputs) ranked
             WHERE newer > $1`,
            [policy.maxTotalBytes],
            'evicted',
          ]);
        for (const [sql, parameters, reason] of steps) {
          const { rows } = await client.query<{ out_id: string }>(sql, parameters);
          const step = await this.#removeRows(
            client,
            rows.map((row) => row.out_id),
            reason,
          );
          removed += step.removed;
          freedBytes += step.freedBytes;
          doomed.push(...step.doomed);
        }
        return { removed, freedBytes, doomed };
      }),
    );
    await this.#dropUnreferenced(result.doomed);
    const orphanBodies = await this.sweepOrphanBodies(
      policy.orphanGraceMs === undefined ? {} : { graceMs: policy.orphanGraceMs },
    );
    return { removed: result.removed, freedBytes: result.freedBytes, orphanBodies };
  }

  /**
   * Removes the bodies in the blob store that no row references (an EMIT that died between its
   * upload and its commit leaves one) and that were last written longer ago than `graceMs`
   * (default one hour). First proves the blob store is still this store's (its marker), so it
   * never removes another store's bodies. Bodies an EMIT in flight is storing are left alone
   * in any case (the EMIT holds its address's lock). `gc` runs it; it lists the whole blob store.
   *
   * @example
   * ```ts
   * const { removed, freedBytes } = await store.sweepOrphanBodies({ graceMs: 86_400_000 });
   * ```
   */
  async sweepOrphanBodies(options: OrphanSweepOptions = {}): Promise<OrphanSweepResult> {
    await this.#open();
    const graceMs = orphanGraceMs(options.graceMs);
    const owner = await this.#ownership;
    let removed = 0;
    let freedBytes = 0;
    let batch: StoredBlob[] = [];
    const flush = async () => {
      const candidates = batch;
      batch = [];
      if (candidates.length === 0) return;
      const referenced = await this.#referenced(
        this.#pool,
        candidates.map((blob) => blob.sha256),
      );
      const orphans = candidates.filter((blob) => !referenced.has(blob.sha256));
      const gone = options.dryRun
        ? new Set(orphans.map((blob) => blob.sha256))
        : new Set(await this.#dropUnreferenced(orphans.map((blob) => blob.sha256)));
      for (const blob of orphans) {
        if (!gone.has(blob.sha256)) continue;
        removed += 1;
        freedBytes += blob.sizeBytes;
      }
    };
    try {
      await this.#blobs.claim(owner);
      const cutoff = this.#now() - graceMs;
      for await (const blob of this.#blobs.list()) {
        if (blob.modifiedMs > cutoff) continue;
        batch.push(blob);
        if (batch.length >= 500) await flush();
      }
      await flush();
    } catch (error) {
      if (OutputStoreError.isInstance(error)) throw error;
      throw new StorageFailureError(`cannot sweep unreferenced bodies: ${String(error)}`, { cause: error });
    }
    return { removed, freedBytes };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#ready.catch(() => undefined);
    if (this.#ownsPool) await this.#pool.end();
    await this.#blobs.close();
    this.#disposeSpool();
  }

  /** Migrates the schema and answers who this store is: its id and where it lives. */
  async #migrate(): Promise<BlobStoreOwner> {
    // The first contact has a deadline of its own (a server that drops packets would otherwise
    // hang it for ever); the pool's connections have none, so a busy pool is waited for.
    let client: pg.ClientBase;
    let release: () => Promise<void>;
    try {
      if (this.#connectionString === undefined) {
        const pooled = await this.#pool.connect();
        client = pooled;
        release = async () => pooled.release();
      } else {
        const own = new pg.Client({
          connectionString: this.#connectionString,
          connectionTimeoutMillis: this.#connectTimeoutMs,
        });
        // A server that closes the connection later must not crash the process.
        own.on('error', () => undefined);
        await own.connect().catch(async (error: unknown) => {
          await own.end().catch(() => undefined);
          throw error;
        });
        client = own;
        release = () => own.end().catch(() => undefined);
      }
    } catch (error) {
      throw (
        connectionFailure(error, this.#connectionString) ??
        new StorageFailureError(
          `cannot connect to ${postgresServer(this.#connectionString)}: ${String(error)}`,
          {
            cause: error,
          },
        )
      );
    }
    try {
      await migratePostgres(client, this.#schema, latestPostgresSchemaVersion);
      const { rows } = await client.query<{
        store_id: string;
        db: string;
        host: string | null;
        port: number | null;
      }>(
        `SELECT store_id, current_database() AS db, host(inet_server_addr()) AS host, inet_server_port() AS port
         FROM ${this.#q}.store_identity`,
      );
      const row = rows[0];
      if (!row) throw new StorageFailureError(`PostgreSQL schema "${this.#schema}" has no store id`);
      const server = row.host === null ? 'a local socket' : `${row.host}:${row.port ?? ''}`;
      return {
        storeId: row.store_id,
        description: `PostgreSQL database "${row.db}" schema "${this.#schema}" on ${server}`,
        ownBodies: () => this.#newestBodies(),
      };
    } catch (error) {
      if (OutputStoreError.isInstance(error)) throw error;
      if ((error as { code?: unknown }).code === '42501')
        throw new StoreConnectionError(
          postgresServer(this.#connectionString),
          'credentials',
          `the user may not create or change schema "${this.#schema}" (${(error as Error).message})`,
          { cause: error },
        );
      throw new StorageFailureError(`cannot migrate PostgreSQL schema "${this.#schema}": ${String(error)}`, {
        cause: error,
      });
    } finally {
      await release();
    }
  }

  /** Claims the blob store for this store, or proves it is already (see `BlobStore.claim`). */
  async #claimBlobs(owner: BlobStoreOwner): Promise<BlobStoreOwner> {
    await this.#blobs.claim(owner);
    return owner;
  }

  /**
   * Addresses of the bodies the newest rows keep in the blob store: the proof that a blob store
   * whose marker is gone holds this store's bodies (see `BlobStoreOwner.ownBodies`).
   */
  async #newestBodies(): Promise<string[]> {
    const { rows } = await this.#pool.query<{ sha256: string }>(
      `SELECT sha256 FROM ${this.#q}.outputs WHERE storage = 'file' ORDER BY seq DESC LIMIT 16`,
    );
    return [...new Set(rows.map((row) => row.sha256))];
  }

  /**
   * A body over the threshold: under a shared lock on its address, upload it, then commit
   * the row; a removal of that address waits (or skips) until the row is visible.
   */
  async #emitFile(
    event: OutputEvent,
    spooled: Extract<SpooledBody, { kind: 'temp' }>,
    mode: EmitMode,
  ): Promise<Inserted> {
    const client = await this.#guard('cannot connect to PostgreSQL', () => this.#pool.connect());
    const key = [this.#blobLockSpace, blobLockKey(spooled.sha256)];
    let broken: Error | undefined;
    let stored = false;
    try {
      await this.#guard('cannot lock the body address', () =>
        client.query('SELECT pg_advisory_lock_shared($1, $2)', key),
      );
      try {
        await this.#blobs.putFile(spooled.sha256, spooled.tempPath, spooled.sizeBytes);
        const inserted = await this.#guard('cannot store output', () =>
          this.#store(client, event, spooled, mode),
        );
        stored = true;
        return inserted;
      } finally {
        await client.query('SELECT pg_advisory_unlock_shared($1, $2)', key).catch((error: unknown) => {
          // A connection that may still hold the lock must not go back to the pool.
          broken = error instanceof Error ? error : new Error(String(error));
        });
      }
    } catch (error) {
      broken ??= OutputStoreError.isInstance(error) ? undefined : (error as Error);
      throw OutputStoreError.isInstance(error)
        ? error
        : new StorageFailureError(`cannot store output: ${String(error)}`, { cause: error });
    } finally {
      client.release(broken);
      // A conflicting or failed EMIT may have left its upload unreferenced.
      if (!stored) await this.#dropUnreferenced([spooled.sha256]).catch(() => undefined);
    }
  }

  /**
   * One EMIT's row: `INSERT … ON CONFLICT DO NOTHING` on the idempotency key; when the key is
   * taken the holder answers (same body: its ref; other body: a conflict), unless it has expired, in
   * which case it is removed and the insert tried again.
   */
  async #insert(
    db: Queryable,
    event: OutputEvent,
    spooled: SpooledBody,
    withRecord: boolean,
  ): Promise<Inserted> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const now = this.#now();
      const outId = newOutId();
      const values = rowValues(event, spooled, now, outId);
      const body = values.body as Uint8Array | null;
      const inserted = await db.query({
        name: `wharf:${this.#schema}:insert${withRecord ? '-returning' : ''}`,
        text: `INSERT INTO ${this.#q}.outputs (${insertedColumns.join(', ')}) VALUES (${insertPlaceholders})
               ON CONFLICT ON CONSTRAINT outputs_idempotency DO NOTHING
               ${withRecord ? `RETURNING ${recordColumns}` : ''}`,
        // The body as a Buffer over the same bytes, which pg sends as bytea.
        values: insertParameters({
          ...values,
          body: body === null ? null : Buffer.from(body.buffer, body.byteOffset, body.byteLength),
        }),
      });
      // A racing INSERT of the same key waits for the other to commit, then inserts nothing.
      if (inserted.rowCount === 1)
        return withRecord
          ? { ref: { outId }, row: parsePostgresRow(inserted.rows[0]), created: true }
          : { ref: { outId }, created: true };
      const existing = await this.#byKey(db, event.producer, event.idempotencyKey);
      if (!existing) continue;
      if (existing.expiresAt === null || existing.expiresAt > now) {
        if (existing.sha256 !== spooled.sha256)
          throw new IdempotencyConflictError(event.idempotencyKey, existing.outId);
        return { ref: { outId: existing.outId }, created: false };
      }
      const removed = await this.#removeRows(db, [existing.outId], 'expired');
      if (removed.doomed.length > 0) void this.#dropUnreferenced(removed.doomed).catch(() => undefined);
    }
    throw new StorageFailureError(
      `cannot store output under key "${event.idempotencyKey}": it kept changing hands`,
    );
  }

  async #byKey(
    db: Queryable,
    scope: IdempotencyScope,
    idempotencyKey: string,
  ): Promise<{ outId: string; sha256: string; expiresAt: number | null } | undefined> {
    const { rows } = await db.query({
      name: `wharf:${this.#schema}:by-key`,
      text: `SELECT out_id, sha256, expires_at FROM ${this.#q}.outputs
             WHERE owner_id = $1 AND run_id = $2 AND spawn_id = $3 AND idempotency_key = $4`,
      values: [scope.ownerId, scope.runId, scope.spawnId, idempotencyKey],
    });
    const row = rows[0] as { out_id: string; sha256: string; expires_at: unknown } | undefined;
    if (!row) return undefined;
    return {
      outId: row.out_id,
      sha256: row.sha256,
      expiresAt: row.expires_at === null ? null : toNumber(row.expires_at),
    };
  }

  /** Deletes rows and tombstones them in one statement; returns the body addresses they used. */
  async #removeRows(
    db: Queryable,
    outIds: readonly string[],
    reason: NotFoundReason,
  ): Promise<{ removed: number; freedBytes: number; doomed: string[] }> {
    if (outIds.length === 0) return { removed: 0, freedBytes: 0, doomed: [] };
    const { rows } = await db.query<Removed>(
      `WITH removed AS (
         DELETE FROM ${this.#q}.outputs WHERE out_id = ANY($1::text[])
         RETURNING out_id, sha256, storage, size_bytes
       ), stones AS (
         INSERT INTO ${this.#q}.tombstones (out_id, reason, removed_at)
         SELECT out_id, $2, $3 FROM removed
         ON CONFLICT (out_id) DO UPDATE SET reason = EXCLUDED.reason, removed_at = EXCLUDED.removed_at
       )
       SELECT out_id, sha256, storage, size_bytes FROM removed`,
      [outIds, reason, this.#now()],
    );
    return {
      removed: rows.length,
      freedBytes: rows.reduce((sum, row) => sum + toNumber(row.size_bytes), 0),
      doomed: rows.filter((row) => row.storage === 'file').map((row) => row.sha256),
    };
  }

  /** The addresses among `shas` that some row stores its body under. */
  async #referenced(db: Queryable, shas: readonly string[]): Promise<Set<string>> {
    const { rows } = await db.query<{ sha256: string }>(
      `SELECT DISTINCT sha256 FROM ${this.#q}.outputs WHERE storage = 'file' AND sha256 = ANY($1::text[])`,
      [shas],
    );
    return new Set(rows.map((row) => row.sha256));
  }

  /**
   * Removes the bodies among `shas` that no row references, each under an exclusive lock on
   * its address taken without waiting: an address an EMIT holds is skipped (its row is on the
   * way, or the next sweep finds it unreferenced). The reference check runs after the lock,
   * so it sees every row committed before. Answers the addresses it removed. Nothing is
   * removed from a blob store this store has not claimed (see `BlobStore.claim`).
   */
  async #dropUnreferenced(shas: readonly string[]): Promise<string[]> {
    const unique = [...new Set(shas)];
    if (unique.length === 0 || this.#closed) return [];
    try {
      await this.#ownership;
      return await this.#transaction(async (client) => {
        const locked: string[] = [];
        for (const sha256 of unique) {
          const { rows } = await client.query<{ locked: boolean }>(
            'SELECT pg_try_advisory_xact_lock($1, $2) AS locked',
            [this.#blobLockSpace, blobLockKey(sha256)],
          );
          if (rows[0]?.locked) locked.push(sha256);
        }
        if (locked.length === 0) return [];
        const referenced = await this.#referenced(client, locked);
        const removed: string[] = [];
        for (const sha256 of locked) {
          if (referenced.has(sha256)) continue;
          await this.#blobs.remove(sha256);
          removed.push(sha256);
        }
        return removed;
      });
    } catch {
      // Left for the next sweep: an unreferenced body costs space, never correctness.
      return [];
    }
  }

  /**
   * Runs `work` in a transaction on `on` (a connection the caller holds and releases), else on
   * a pooled connection of its own. A connection whose rollback failed is released broken.
   */
  async #transaction<TResult>(
    work: (client: pg.PoolClient) => Promise<TResult>,
    on?: pg.PoolClient,
  ): Promise<TResult> {
    const client = on ?? (await this.#pool.connect());
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch((rollbackError: unknown) => {
        broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
      });
      if (on && broken) throw broken;
      throw error;
    } finally {
      if (!on) client.release(broken);
    }
  }

  #filter(query: ListQuery): { where: string; parameters: unknown[] } {
    const parameters: unknown[] = [this.#now()];
    const clauses = ['(expires_at IS NULL OR expires_at > $1)'];
    for (const [column, value] of [
      ['owner_id', query.ownerId],
      ['run_id', query.runId],
      ['spawn_id', query.spawnId],
    ] as const) {
      if (value === undefined) continue;
      parameters.push(value);
      clauses.push(`${column} = $${parameters.length}`);
    }
    if (query.labels && Object.keys(query.labels).length > 0) {
      parameters.push(JSON.stringify(query.labels));
      clauses.push(`labels @> $${parameters.length}::jsonb`);
    }
    return { where: clauses.join(' AND '), parameters };
  }

  /**
   * The row of a live output: without its body, with it, or with the bytes of a {@link RowSlice}
   * of it (those the slice names, as far as the body goes).
   */
  async #liveRow(ref: OutputRef, body: boolean | RowSlice): Promise<OutputRow & { body?: Buffer | null }> {
    await this.#open();
    const query =
      body === false
        ? { name: 'row', column: '', values: [ref.outId] }
        : body === true
          ? { name: 'row-body', column: ', body', values: [ref.outId] }
          : {
              name: 'row-slice',
              column: ', substring(body FROM $2 FOR $3) AS body',
              values: [ref.outId, body.from, body.length],
            };
    const { rows } = await this.#guard('cannot read output', () =>
      this.#pool.query({
        name: `wharf:${this.#schema}:${query.name}`,
        text: `SELECT ${recordColumns}${query.column} FROM ${this.#q}.outputs WHERE out_id = $1`,
        values: query.values,
      }),
    );
    const raw = rows[0] as Record<string, unknown> | undefined;
    if (raw === undefined)
      throw new OutputNotFoundError(ref.outId, (await this.#tombstone(ref.outId)) ?? 'unknown');
    const row = parsePostgresRow(raw);
    if (row.expires_at !== null && row.expires_at <= this.#now())
      throw new OutputNotFoundError(ref.outId, 'expired');
    return { ...row, body: Buffer.isBuffer(raw.body) ? raw.body : null };
  }

  async #tombstone(outId: string): Promise<NotFoundReason | undefined> {
    const { rows } = await this.#guard('cannot read output', () =>
      this.#pool.query({
        name: `wharf:${this.#schema}:tombstone`,
        text: `SELECT reason FROM ${this.#q}.tombstones WHERE out_id = $1`,
        values: [outId],
      }),
    );
    const reason = (rows[0] as { reason?: string } | undefined)?.reason;
    return reason === 'deleted' || reason === 'expired' || reason === 'evicted' ? reason : undefined;
  }

  async #missingBody(ref: OutputRef, error: unknown): Promise<Error> {
    if (BlobNotFoundError.isInstance(error)) {
      const reason = await this.#tombstone(ref.outId);
      if (reason) return new OutputNotFoundError(ref.outId, reason);
    }
    return new StorageFailureError(`body of ${ref.outId} is unreadable: ${String(error)}`, { cause: error });
  }

  /** Runs a driver call, turning a driver error into a {@link StorageFailureError}. */
  async #guard<TResult>(what: string, work: () => Promise<TResult>): Promise<TResult> {
    try {
      return await work();
    } catch (error) {
      if (OutputStoreError.isInstance(error)) throw error;
      // A server that stopped answering is named: `cannot use PostgreSQL server …: no server
      // answers (read ECONNRESET) — cannot look up the key`.
      throw (
        connectionFailure(error, this.#connectionString, what) ??
        new StorageFailureError(`${what}: ${String(error)}`, { cause: error })
      );
    }
  }

  async #open(): Promise<void> {
    this.#assertOpen();
    await this.#ready;
    this.#assertOpen();
  }

  #assertOpen(): void {
    if (this.#closed) throw new StorageFailureError('the output store is closed');
  }
}

/** The largest count SQL's `substring` takes (a 32-bit integer). */
const MAX_SUBSTRING = 2 ** 31 - 1;

/** A part of a body in the row, as SQL's `substring` takes it: from a 1-based byte, so many bytes (as far as the body goes). */
interface RowSlice {
  from: number;
  length: number;
}

/**
 * The slice of the row's body a range needs, or undefined for a range the database should not
 * be asked to cut (not whole numbers, backwards, or past what `substring` takes): then the
 * whole row is read and the range is refused or cut as before.
 *
 * @example
 * ```ts
 * rowSlice({ start: 64, end: 96 }); // { from: 65, length: 32 }
 * rowSlice({ start: 10 }); // { from: 11, length: 2147483647 }: to the end
 * ```
 */
function rowSlice(range: ByteRange): RowSlice | undefined {
  const start = range.start ?? 0;
  const { end } = range;
  const whole = (value: number) => Number.isSafeInteger(value) && value >= 0 && value < MAX_SUBSTRING;
  if (!whole(start)) return undefined;
  if (end === undefined) return { from: start + 1, length: MAX_SUBSTRING };
  if (!whole(end) || end < start) return undefined;
  return { from: start + 1, length: end - start };
}
