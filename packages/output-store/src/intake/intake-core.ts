import { parseBearerToken } from '@wharf/common';
import { IntakeBusyError, OutputUnauthorizedError } from '../errors.js';
import type { SpawnTokenClaims } from '../schemas.js';
import type {
  EmittedOutput,
  EmitWithRecordOptions,
  OutputEvent,
  OutputRecord,
  OutputRef,
  OutputStore,
} from '../types.js';
import { type IntakeOptions, intakeLimit } from './intake-options.js';
import type { DraftEvent } from './raw-event-meta.js';
import { SpawnQuota } from './spawn-quota.js';
import type { UploadPaceOptions } from './upload-pace.js';
import { UploadSlots } from './upload-slots.js';
import { VerifiedTokens } from './verified-tokens.js';

/**
 * Raw bodies declared at most this large are read whole instead of streamed.
 *
 * @example
 * ```ts
 * const whole = Number(request.headers['content-length']) <= smallBodyBytes;
 * ```
 */
export const smallBodyBytes = 64 * 1024;

/**
 * An EMIT the intake stored: its ref and record, and whether this request created it (201) or
 * replayed a stored key (200).
 *
 * @example
 * ```ts
 * const stored: StoredEmit = await core.storeDraft(claims, draft);
 * const status = stored.created ? 201 : 200;
 * ```
 */
export interface StoredEmit {
  readonly ref: OutputRef;
  readonly record: OutputRecord;
  readonly created: boolean;
}

/**
 * A store whose emit also answers the record and whether it created it, and counts the spawn's
 * quota in its inserting transaction (`SqliteOutputStore`, `PostgresOutputStore`).
 */
interface RecordingStore extends OutputStore {
  emitWithRecord(event: OutputEvent, options: EmitWithRecordOptions): Promise<EmittedOutput>;
}

function recordsEmits(store: OutputStore): store is RecordingStore {
  return typeof (store as Partial<RecordingStore>).emitWithRecord === 'function';
}

/**
 * What every route of one intake shares: the resolved limits,
 * the count of `/v1` requests in progress (for `maxConcurrentRequests`), the uploads in
 * progress per spawn and per run, the minimum upload pace, the verified-token
 * cache, the spawn quota, and storing an EMIT.
 *
 * @example
 * ```ts
 * const core = new IntakeCore({ store, secret });
 * core.admit();
 * try {
 *   const claims = core.claimsOf(request.headers.authorization);
 *   await core.storeDraft(claims, { idempotencyKey: 'k1', content: { kind: 'text', text: 'hi' } });
 * } finally {
 *   core.leave();
 * }
 * ```
 */
export class IntakeCore {
  readonly store: OutputStore;
  readonly now: () => number;
  readonly maxBodyBytes: number;
  readonly maxJsonBytes: number;
  readonly maxJsonDepth: number;
  readonly maxConcurrentRequests: number;
  /** The caps on uploads in progress per spawn and per run. */
  readonly uploads: UploadSlots;
  /** The minimum pace of a body after its grace period. */
  readonly pace: UploadPaceOptions;
  readonly #quota = new SpawnQuota();
  readonly #tokens: VerifiedTokens;
  #active = 0;

  constructor(options: IntakeOptions) {
    this.store = options.store;
    this.now = options.now ?? Date.now;
    this.maxBodyBytes = intakeLimit(options, 'maxBodyBytes', 0);
    this.maxJsonBytes = intakeLimit(options, 'maxJsonBytes', 0);
    this.maxJsonDepth = intakeLimit(options, 'maxJsonDepth', 1);
    this.maxConcurrentRequests = intakeLimit(options, 'maxConcurrentRequests', 1);
    this.uploads = new UploadSlots({
      perSpawn: intakeLimit(options, 'maxUploadsPerSpawn', 1),
      perRun: intakeLimit(options, 'maxUploadsPerRun', 1),
    });
    this.pace = {
      graceMs: intakeLimit(options, 'uploadGraceMs', 1),
      windowMs: intakeLimit(options, 'uploadRateWindowMs', 1),
      minBytesPerSecond: intakeLimit(options, 'minUploadBytesPerSecond', 0),
    };
    this.#tokens = new VerifiedTokens(options.secret, options.verifiedTokenCacheSize ?? 1024);
  }

  /** True when another `/v1` request would be refused with 503. */
  get busy(): boolean {
    return this.#active >= this.maxConcurrentRequests;
  }

  /** Counts a `/v1` request in, or throws {@link IntakeBusyError} when the cap is reached. */
  admit(): void {
    if (this.busy) throw new IntakeBusyError(this.maxConcurrentRequests, 1);
    this.#active += 1;
  }

  /** Counts an admitted request out. */
  leave(): void {
    this.#active -= 1;
  }

  /**
   * The claims of an `Authorization: Bearer <token>` value (the scheme in any case, as HTTP
   * has it); throws 401 errors for anything else.
   */
  claimsOf(authorization: string | undefined): SpawnTokenClaims {
    const token = parseBearerToken(authorization);
    if (!token) throw new OutputUnauthorizedError('missing bearer token');
    return this.#tokens.verify(token, this.now());
  }

  /** The largest body this token may POST. */
  bodyLimit(claims: SpawnTokenClaims): number {
    return Math.min(this.maxBodyBytes, claims.maxOutputBytes);
  }

  /**
   * Stores a POSTed output as the token's producer, within its `maxOutputs` quota. A recording
   * store (SQLite, PostgreSQL) counts the spawn's outputs in the transaction that inserts the
   * row, so the quota holds exactly across every intake and process sharing the database, with
   * no lookup or count before; a streamed body also reserves its slot in this intake first, so
   * a full spawn is refused before its body is sent. Other stores (in memory) take the
   * reservation, lookup, emit and stat path.
   */
  async storeDraft(claims: SpawnTokenClaims, draft: DraftEvent): Promise<StoredEmit> {
    const { store } = this;
    const producer = {
      ownerId: claims.ownerId,
      runId: claims.runId,
      spawnId: claims.spawnId,
      ...(claims.agent ? { agent: claims.agent } : {}),
    };
    const scope = { ownerId: claims.ownerId, runId: claims.runId, spawnId: claims.spawnId };
    if (recordsEmits(store)) {
      const quota = { maxOutputs: claims.maxOutputs };
      if (draft.content.kind !== 'stream') return await store.emitWithRecord({ ...draft, producer }, quota);
      // The quota looks keys up only when it seems full.
      const release = await this.#quota.reserve(
        claims,
        draft.idempotencyKey,
        () => store.count(scope),
        async (key) => (await store.findByIdempotencyKey(producer, key)) !== undefined,
      );
      try {
        return await store.emitWithRecord({ ...draft, producer }, quota);
      } finally {
        release();
      }
    }
    const existing = await store.findByIdempotencyKey(producer, draft.idempotencyKey);
    const release = existing
      ? undefined
      : await this.#quota.reserve(claims, draft.idempotencyKey, () => store.count(scope));
    let ref: OutputRef;
    try {
      ref = await store.emit({ ...draft, producer });
    } finally {
      release?.();
    }
    return { ref, record: await store.stat(ref), created: !existing };
  }
}
