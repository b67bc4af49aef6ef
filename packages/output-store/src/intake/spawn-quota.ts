import { OutputForbiddenError } from '../errors.js';
import type { SpawnTokenClaims } from '../schemas.js';

/**
 * Gives back a slot taken by {@link SpawnQuota.reserve}; calling it again does nothing.
 *
 * @example
 * ```ts
 * const release: QuotaRelease = await quota.reserve(claims, 'k1', count);
 * try { await store.emit(event); } finally { release(); }
 * ```
 */
export type QuotaRelease = () => void;

interface SpawnLedger {
  /** Settles when the reservation ahead of the next one has been decided. */
  tail: Promise<void>;
  /** Reservations deciding or waiting to decide. */
  deciding: number;
  /** Idempotency keys whose outputs are being stored, with how many requests carry each. */
  readonly inFlight: Map<string, number>;
}

/**
 * The `maxOutputs` quota of spawn tokens, kept by one intake: a request reserves a slot before
 * its body is stored, so concurrent requests of one spawn cannot store more outputs than the
 * token allows. Reservations of a spawn are decided one at a time, each counting the outputs
 * already stored plus the uploads still in flight; a request whose upload fails releases its
 * slot, so a failed body does not use up the quota. Requests carrying the same idempotency key
 * share one slot (at most one output comes of them).
 *
 * The ledger lives in this process: it is exact when all of a spawn's requests reach one
 * intake, as with the per-worker intake whose URL the spawner injects. Across intakes sharing
 * a store, requests that do not overlap in time are still exact (each counts the shared store);
 * uploads in flight at once on N intakes can pass together, at most N × `maxOutputs` in all.
 *
 * @example
 * ```ts
 * const quota = new SpawnQuota();
 * const release = await quota.reserve(claims, 'summary', () => store.count({ spawnId: claims.spawnId }));
 * try { await store.emit(event); } finally { release(); }
 * ```
 */
export class SpawnQuota {
  readonly #ledgers = new Map<string, SpawnLedger>();

  /**
   * Takes a slot for a new output of the token's spawn, or throws {@link OutputForbiddenError}
   * when the stored outputs and the uploads in flight already fill `maxOutputs`.
   * `countStored` counts the spawn's live outputs in the store.
   *
   * `isStored` (whether an idempotency key of the spawn already holds a live output) lets a
   * caller reserve without looking its key up first: it is asked only when the quota looks
   * full. A key already stored is then a replay and passes, and uploads in flight whose keys
   * are already stored (replays, or outputs committed but not yet released) are not counted
   * twice, so the decision is the one a lookup before every reservation would give.
   */
  async reserve(
    claims: SpawnTokenClaims,
    idempotencyKey: string,
    countStored: () => Promise<number>,
    isStored?: (idempotencyKey: string) => Promise<boolean>,
  ): Promise<QuotaRelease> {
    const spawnKey = JSON.stringify([claims.ownerId, claims.runId, claims.spawnId]);
    const ledger = this.#ledger(spawnKey);
    const ahead = ledger.tail;
    let decided!: () => void;
    ledger.tail = new Promise((resolve) => {
      decided = resolve;
    });
    ledger.deciding += 1;
    try {
      await ahead;
      if (!ledger.inFlight.has(idempotencyKey)) {
        // Taken before counting: an upload that finishes during the count is counted once
        // at least, never missed.
        const inFlight = ledger.inFlight.size;
        const stored = await countStored();
        if (
          stored + inFlight >= claims.maxOutputs &&
          !(isStored && (await this.#fitsAfterLookups(claims, idempotencyKey, ledger, countStored, isStored)))
        ) {
          throw new OutputForbiddenError(`this spawn may store at most ${claims.maxOutputs} outputs`);
        }
      }
      ledger.inFlight.set(idempotencyKey, (ledger.inFlight.get(idempotencyKey) ?? 0) + 1);
    } finally {
      ledger.deciding -= 1;
      decided();
      this.#forgetIdle(spawnKey, ledger);
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const holders = (ledger.inFlight.get(idempotencyKey) ?? 1) - 1;
      if (holders > 0) ledger.inFlight.set(idempotencyKey, holders);
      else ledger.inFlight.delete(idempotencyKey);
      this.#forgetIdle(spawnKey, ledger);
    };
  }

  /** Uploads in flight for this spawn (for tests and metrics). */
  inFlight(claims: Pick<SpawnTokenClaims, 'ownerId' | 'runId' | 'spawnId'>): number {
    return (
      this.#ledgers.get(JSON.stringify([claims.ownerId, claims.runId, claims.spawnId]))?.inFlight.size ?? 0
    );
  }

  /**
   * The full-looking quota's second look: true when the key is a replay, or when only the
   * uploads in flight that are not stored yet count on top of the stored outputs. The keys are
   * looked up before counting again, so an upload committing in between is counted at least
   * once, never missed.
   */
  async #fitsAfterLookups(
    claims: SpawnTokenClaims,
    idempotencyKey: string,
    ledger: SpawnLedger,
    countStored: () => Promise<number>,
    isStored: (idempotencyKey: string) => Promise<boolean>,
  ): Promise<boolean> {
    if (await isStored(idempotencyKey)) return true;
    let unstored = 0;
    for (const key of [...ledger.inFlight.keys()]) if (!(await isStored(key))) unstored += 1;
    return (await countStored()) + unstored < claims.maxOutputs;
  }

  #ledger(spawnKey: string): SpawnLedger {
    let ledger = this.#ledgers.get(spawnKey);
    if (!ledger) {
      ledger = { tail: Promise.resolve(), deciding: 0, inFlight: new Map() };
      this.#ledgers.set(spawnKey, ledger);
    }
    return ledger;
  }

  #forgetIdle(spawnKey: string, ledger: SpawnLedger): void {
    if (ledger.deciding === 0 && ledger.inFlight.size === 0 && this.#ledgers.get(spawnKey) === ledger) {
      this.#ledgers.delete(spawnKey);
    }
  }
}
