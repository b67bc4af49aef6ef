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
   * Verified spawn tokens kept by their exact text so a spawn's next EMIT skips the HMAC and
   * claim checks (expiry is still checked on each request), default 1024; 0 verifies every time.
   */
  readonly verifiedTokenCacheSize?: number;
  readonly now?: () => number;
}
