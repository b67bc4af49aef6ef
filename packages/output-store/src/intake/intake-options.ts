import { InvalidOutputEventError } from '../errors.js';
import type { TokenSecret } from '../spawn-token.js';
import type { OutputStore } from '../types.js';

/**
 * Options of `createIntakeHandler` (and, with where to listen, of `createIntakeServer`).
 *
 * @example
 * ```ts
 * const options: IntakeOptions = { store, secret: process.env.WHARF_INTAKE_SECRET ?? '' };
 * ```
 */
export interface IntakeOptions {
  readonly store: OutputStore;
  /** HMAC secret(s) of the spawn tokens (at least 32 bytes each). */
  readonly secret: TokenSecret;
  /** Server-wide body cap, default 1 GiB; a token may lower it. */
  readonly maxBodyBytes?: number;
  /** Cap of a JSON request, default 1 MiB. */
  readonly maxJsonBytes?: number;
  /**
   * Deepest nesting of arrays and objects in a JSON envelope, the envelope itself included
   * (`{"content":{"kind":"json","value":[]}}` nests 3 deep); default 128. Deeper bodies are
   * refused with 400 before they are parsed.
   */
  readonly maxJsonDepth?: number;
  /**
   * `/v1` requests handled at once, default 32 (each may hold a JSON envelope of up to
   * `maxJsonBytes` in memory). Requests beyond it are refused at once with 503 and
   * `Retry-After: 1` (`IntakeBusyError`); `/healthz` is not counted.
   */
  readonly maxConcurrentRequests?: number;
  /**
   * Uploads (`POST /v1/outputs`) one spawn credential may have in progress at once, default 4;
   * `maxUploadsPerRun` (default 16) caps those of all the spawns of one run. An upload beyond
   * either is refused at once with 429 and `Retry-After: 1` (`TooManyUploadsError`), so one
   * token holder cannot take every slot of `maxConcurrentRequests`.
   */
  readonly maxUploadsPerSpawn?: number;
  /** See {@link IntakeOptions.maxUploadsPerSpawn}; default 16. */
  readonly maxUploadsPerRun?: number;
  /**
   * An upload's body may take its time for this long, default 10 000 ms; after it, every
   * `uploadRateWindowMs` (default 10 000 ms) must bring at least `minUploadBytesPerSecond`
   * (default 128 bytes/s, below a model's token stream) on average, else the upload is cut
   * (408 `TIMEOUT`, nothing stored). A slow but moving stream goes on for as long as it keeps
   * that pace. `minUploadBytesPerSecond: 0` turns the check off.
   */
  readonly uploadGraceMs?: number;
  /** See {@link IntakeOptions.uploadGraceMs}; default 10 000 ms. */
  readonly uploadRateWindowMs?: number;
  /** See {@link IntakeOptions.uploadGraceMs}; default 128 bytes per second. */
  readonly minUploadBytesPerSecond?: number;
  /**
   * Verified spawn tokens kept by their exact text so a spawn's next EMIT skips the HMAC and
   * claim checks (expiry is still checked on each request), default 1024; 0 verifies every time.
   */
  readonly verifiedTokenCacheSize?: number;
  readonly now?: () => number;
}

/**
 * The defaults of {@link IntakeOptions}' limits.
 *
 * @example
 * ```ts
 * intakeDefaults.maxUploadsPerSpawn; // 4
 * ```
 */
export const intakeDefaults = {
  maxBodyBytes: 2 ** 30,
  maxJsonBytes: 2 ** 20,
  maxJsonDepth: 128,
  maxConcurrentRequests: 32,
  maxUploadsPerSpawn: 4,
  maxUploadsPerRun: 16,
  uploadGraceMs: 10_000,
  uploadRateWindowMs: 10_000,
  minUploadBytesPerSecond: 128,
} as const;

/**
 * A whole-number limit of {@link IntakeOptions}, its default when left out; anything below
 * `least` (or not a safe integer) is refused naming the option.
 *
 * @example
 * ```ts
 * const perSpawn = intakeLimit(options, 'maxUploadsPerSpawn', 1);
 * ```
 */
export function intakeLimit(
  options: IntakeOptions,
  name: keyof typeof intakeDefaults,
  least: number,
): number {
  const value = options[name] ?? intakeDefaults[name];
  if (!Number.isSafeInteger(value) || value < least)
    throw new InvalidOutputEventError(name, `must be a whole number of at least ${least}`);
  return value;
}
