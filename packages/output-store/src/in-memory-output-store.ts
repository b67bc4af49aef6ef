import { Readable } from 'node:stream';
import { resolveRange } from './byte-range.js';
import { collectBody } from './collect-body.js';
import { decodeCursor, encodeCursor, pageLimit } from './cursor.js';
import {
  IdempotencyConflictError,
  type NotFoundReason,
  OutputNotFoundError,
  StorageFailureError,
} from './errors.js';
import { newOutId } from './ids.js';
import { defaultContentType } from './inline-content.js';
import { planRetention } from './retention.js';
import type {
  ByteRange,
  GcResult,
  IdempotencyScope,
  ListPage,
  ListQuery,
  OpenedBody,
  OutputEvent,
  OutputRecord,
  OutputRef,
  OutputStore,
  RetentionPolicy,
} from './types.js';
import { validateKeyLookup, validateListQuery, validateOutputEvent } from './validate-event.js';

/**
 * Options of {@link InMemoryOutputStore}.
 *
 * @example
 * ```ts
 * const options: InMemoryOutputStoreOptions = { allowedRoots: ['/srv/work'], maxBodyBytes: 2 ** 20 };
 * ```
 */
export interface InMemoryOutputStoreOptions {
  /** Directories `file` content may come from; none by default (file content is refused). */
  readonly allowedRoots?: readonly string[];
  /** Largest accepted body, default 64 MiB. */
  readonly maxBodyBytes?: number;
  /** Clock in epoch milliseconds (tests). */
  readonly now?: () => number;
}

interface Entry {
  readonly sequence: number;
  readonly record: OutputRecord;
  readonly body: Uint8Array;
  readonly createdMs: number;
  readonly expiresMs: number | undefined;
}

/**
 * An {@link OutputStore} that keeps everything in memory: the default for tests and
 * prototypes. Same behaviour as the SQLite store, nothing survives the process.
 *
 * @example
 * ```ts
 * const store = new InMemoryOutputStore();
 * const ref = await store.emit({
 *   producer: { ownerId: 'o', runId: 'r', spawnId: 's' },
 *   content: { kind: 'text', text: 'hello' }, idempotencyKey: 'k1',
 * });
 * ```
 */
export class InMemoryOutputStore implements OutputStore {
  readonly #entries = new Map<string, Entry>();
  readonly #keys = new Map<string, string>();
  readonly #tombstones = new Map<string, NotFoundReason>();
  readonly #allowedRoots: readonly string[];
  readonly #maxBodyBytes: number;
  readonly #now: () => number;
  #sequence = 0;
  #closed = false;

  constructor(options: InMemoryOutputStoreOptions = {}) {
    this.#allowedRoots = options.allowedRoots ?? [];
    this.#maxBodyBytes = options.maxBodyBytes ?? 64 * 2 ** 20;
    this.#now = options.now ?? Date.now;
  }

  async emit(event: OutputEvent): Promise<OutputRef> {
    this.#assertOpen();
    validateOutputEvent(event);
    const { bytes, sha256 } = await collectBody(event.content, {
      allowedRoots: this.#allowedRoots,
      maxBodyBytes: this.#maxBodyBytes,
    });
    this.#assertOpen();
    const keyId = scopedKey(event.producer, event.idempotencyKey);
    const existingId = this.#keys.get(keyId);
    const existing = existingId === undefined ? undefined : this.#entries.get(existingId);
    if (existing) {
      if (!this.#isExpired(existing)) {
        if (existing.record.sha256 !== sha256)
          throw new IdempotencyConflictError(event.idempotencyKey, existing.record.outId);
        return { outId: existing.record.outId };
      }
      this.#remove(existing.record.outId, 'expired');
    }
    const nowMs = this.#now();
    const outId = newOutId();
    const expiresMs = event.ttlMs === undefined ? undefined : nowMs + event.ttlMs;
    const record: OutputRecord = {
      outId,
      producer: { ...event.producer },
      ...(event.name === undefined ? {} : { name: event.name }),
      contentType: event.contentType ?? defaultContentType(event.content),
      sizeBytes: bytes.byteLength,
      sha256,
      createdAt: new Date(nowMs).toISOString(),
      ...(expiresMs === undefined ? {} : { expiresAt: new Date(expiresMs).toISOString() }),
      storage: 'inline',
      labels: { ...event.labels },
      idempotencyKey: event.idempotencyKey,
    };
    this.#sequence += 1;
    this.#entries.set(outId, { sequence: this.#sequence, record, body: bytes, createdMs: nowMs, expiresMs });
    this.#keys.set(keyId, outId);
    return { outId };
  }

  async stat(ref: OutputRef): Promise<OutputRecord> {
    return this.#live(ref).record;
  }

  async get(ref: OutputRef): Promise<{ record: OutputRecord; body: Uint8Array }> {
    const entry = this.#live(ref);
    return { record: entry.record, body: Uint8Array.from(entry.body) };
  }

  async openBody(ref: OutputRef, range?: ByteRange): Promise<OpenedBody> {
    const entry = this.#live(ref);
    const { start, end } = resolveRange(range, entry.record.sizeBytes);
    const slice = Buffer.from(entry.body.subarray(start, end));
    return { record: entry.record, start, end, stream: Readable.from(slice.byteLength > 0 ? [slice] : []) };
  }

  async list(query: ListQuery = {}): Promise<ListPage> {
    this.#assertOpen();
    validateListQuery(query);
    const limit = pageLimit(query.limit);
    const after = query.cursor === undefined ? 0 : decodeCursor(query.cursor);
    const records: OutputRecord[] = [];
    let last = 0;
    for (const entry of this.#entries.values()) {
      if (entry.sequence <= after || this.#isExpired(entry) || !matches(entry.record, query)) continue;
      if (records.length === limit) return { records, nextCursor: encodeCursor(last) };
      records.push(entry.record);
      last = entry.sequence;
    }
    return { records };
  }

  async count(query: ListQuery = {}): Promise<number> {
    this.#assertOpen();
    validateListQuery(query);
    let total = 0;
    for (const entry of this.#entries.values()) {
      if (!this.#isExpired(entry) && matches(entry.record, query)) total += 1;
    }
    return total;
  }

  async findByIdempotencyKey(
    scope: IdempotencyScope,
    idempotencyKey: string,
  ): Promise<OutputRef | undefined> {
    this.#assertOpen();
    validateKeyLookup(scope, idempotencyKey);
    const outId = this.#keys.get(scopedKey(scope, idempotencyKey));
    const entry = outId === undefined ? undefined : this.#entries.get(outId);
    return entry && !this.#isExpired(entry) ? { outId: entry.record.outId } : undefined;
  }

  async delete(ref: OutputRef): Promise<boolean> {
    this.#assertOpen();
    if (!this.#entries.has(ref.outId)) return false;
    this.#remove(ref.outId, 'deleted');
    return true;
  }

  async gc(policy: RetentionPolicy = {}): Promise<GcResult> {
    this.#assertOpen();
    if (policy.runId !== undefined) validateListQuery({ runId: policy.runId });
    const candidates = [...this.#entries.values()].map((entry) => ({
      outId: entry.record.outId,
      runId: entry.record.producer.runId,
      sizeBytes: entry.record.sizeBytes,
      createdMs: entry.createdMs,
      expiresMs: entry.expiresMs,
    }));
    const plan = planRetention(candidates, policy, this.#now());
    let freedBytes = 0;
    for (const item of plan) {
      freedBytes += this.#entries.get(item.outId)?.record.sizeBytes ?? 0;
      this.#remove(item.outId, item.reason);
    }
    // Bodies live in the records: there is never an unreferenced one to sweep.
    return { removed: plan.length, freedBytes, orphanBodies: { removed: 0, freedBytes: 0 } };
  }

  async close(): Promise<void> {
    this.#closed = true;
  }

  #remove(outId: string, reason: NotFoundReason): void {
    const entry = this.#entries.get(outId);
    if (!entry) return;
    this.#entries.delete(outId);
    this.#keys.delete(scopedKey(entry.record.producer, entry.record.idempotencyKey));
    this.#tombstones.set(outId, reason);
  }

  #isExpired(entry: Entry): boolean {
    return entry.expiresMs !== undefined && entry.expiresMs <= this.#now();
  }

  #live(ref: OutputRef): Entry {
    this.#assertOpen();
    const entry = this.#entries.get(ref.outId);
    if (!entry) throw new OutputNotFoundError(ref.outId, this.#tombstones.get(ref.outId) ?? 'unknown');
    if (this.#isExpired(entry)) throw new OutputNotFoundError(ref.outId, 'expired');
    return entry;
  }

  #assertOpen(): void {
    if (this.#closed) throw new StorageFailureError('the output store is closed');
  }
}

/** The map key of an idempotency key in its scope; JSON keeps the parts apart whatever they hold. */
function scopedKey(scope: IdempotencyScope, idempotencyKey: string): string {
  return JSON.stringify([scope.ownerId, scope.runId, scope.spawnId, idempotencyKey]);
}

function matches(record: OutputRecord, query: ListQuery): boolean {
  if (query.ownerId !== undefined && record.producer.ownerId !== query.ownerId) return false;
  if (query.runId !== undefined && record.producer.runId !== query.runId) return false;
  if (query.spawnId !== undefined && record.producer.spawnId !== query.spawnId) return false;
  for (const [key, value] of Object.entries(query.labels ?? {})) {
    if (record.labels[key] !== value) return false;
  }
  return true;
}
