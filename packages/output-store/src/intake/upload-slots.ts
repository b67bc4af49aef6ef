import { TooManyUploadsError } from '../errors.js';
import type { SpawnTokenClaims } from '../schemas.js';

/**
 * Gives back a slot taken by {@link UploadSlots.take}; calling it again does nothing.
 *
 * @example
 * ```ts
 * const release: UploadRelease = slots.take(claims);
 * try { await store.emit(event); } finally { release(); }
 * ```
 */
export type UploadRelease = () => void;

/**
 * Caps the uploads (`POST /v1/outputs`) one spawn credential, and one run, has in progress at
 * an intake, so that a single token holder cannot take every one of the intake's
 * `maxConcurrentRequests` slots (uploads that never finish would otherwise hold them all and
 * every other spawn would be refused). An upload beyond a cap is refused at once with
 * {@link TooManyUploadsError} (429, `Retry-After`), before its body is read; other spawns and
 * runs still get slots.
 *
 * @example
 * ```ts
 * const slots = new UploadSlots({ perSpawn: 4, perRun: 16 });
 * const release = slots.take(claims); // throws TooManyUploadsError past a cap
 * try { await emitRoute(core, exchange, claims); } finally { release(); }
 * ```
 */
export class UploadSlots {
  readonly perSpawn: number;
  readonly perRun: number;
  readonly #inProgress = new Map<string, number>();

  constructor(limits: { perSpawn: number; perRun: number }) {
    this.perSpawn = limits.perSpawn;
    this.perRun = limits.perRun;
  }

  /** Takes a slot of the token's spawn and of its run, or throws {@link TooManyUploadsError}. */
  take(claims: Pick<SpawnTokenClaims, 'ownerId' | 'runId' | 'spawnId'>): UploadRelease {
    const { spawnKey, runKey } = keysOf(claims);
    if (this.#count(spawnKey) >= this.perSpawn) throw new TooManyUploadsError('spawn', this.perSpawn, 1);
    if (this.#count(runKey) >= this.perRun) throw new TooManyUploadsError('run', this.perRun, 1);
    this.#add(spawnKey, 1);
    this.#add(runKey, 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#add(spawnKey, -1);
      this.#add(runKey, -1);
    };
  }

  /** Uploads in progress of the token's spawn and of its run (for tests and metrics). */
  inProgress(claims: Pick<SpawnTokenClaims, 'ownerId' | 'runId' | 'spawnId'>): {
    spawn: number;
    run: number;
  } {
    const { spawnKey, runKey } = keysOf(claims);
    return { spawn: this.#count(spawnKey), run: this.#count(runKey) };
  }

  #count(key: string): number {
    return this.#inProgress.get(key) ?? 0;
  }

  #add(key: string, delta: number): void {
    const count = this.#count(key) + delta;
    if (count > 0) this.#inProgress.set(key, count);
    else this.#inProgress.delete(key);
  }
}

function keysOf(claims: Pick<SpawnTokenClaims, 'ownerId' | 'runId' | 'spawnId'>): {
  spawnKey: string;
  runKey: string;
} {
  // Ids hold no NUL (the claims schema refuses it), so NUL-joined keys cannot collide.
  const runKey = `${claims.ownerId}\0${claims.runId}`;
  return { spawnKey: `${runKey}\0${claims.spawnId}`, runKey };
}
