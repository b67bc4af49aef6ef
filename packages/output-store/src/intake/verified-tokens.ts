import { RecentMap } from '@wharf/common';
import type { SpawnTokenClaims } from '../schemas.js';
import { type TokenSecret, verifySpawnToken } from '../spawn-token.js';

/**
 * Spawn tokens this intake has verified, kept by their exact text (least recently used first
 * out, `capacity` at most): a subagent sends one token with every EMIT, so its signature, JSON
 * and schema are checked once. A cached token's expiry is still checked on every request; an
 * expired one is dropped and verified again, which throws the usual error. Only tokens that
 * verified are kept, and a different string (another signature, claims or secret) is a miss.
 *
 * @example
 * ```ts
 * const tokens = new VerifiedTokens(secret);
 * const claims = tokens.verify(token, Date.now());
 * ```
 */
export class VerifiedTokens {
  readonly #secret: TokenSecret;
  readonly #claims: RecentMap<string, SpawnTokenClaims>;

  constructor(secret: TokenSecret, capacity = 1024) {
    this.#secret = secret;
    this.#claims = new RecentMap(capacity);
  }

  /** The token's claims, or throws as `verifySpawnToken` does. */
  verify(token: string, now: number): SpawnTokenClaims {
    const cached = this.#claims.get(token);
    if (cached !== undefined) {
      if (cached.expiresAt > now) return cached;
      this.#claims.delete(token);
    }
    const claims = verifySpawnToken(token, this.#secret, now);
    this.#claims.set(token, claims);
    return claims;
  }

  /** Tokens cached now (for tests and metrics). */
  get size(): number {
    return this.#claims.size;
  }
}
