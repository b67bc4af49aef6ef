import { createHmac, timingSafeEqual } from 'node:crypto';
import { InvalidOutputEventError, OutputUnauthorizedError } from './errors.js';
import { type SpawnTokenClaims, spawnTokenClaimsSchema } from './schemas.js';
import { parseSpawnTokenClaims } from './spawn-token-claims.js';

const prefix = 'wst1';

/**
 * One secret, or several during rotation (the first signs, any verifies).
 *
 * @example
 * ```ts
 * const secret: TokenSecret = [process.env.NEW_SECRET ?? '', process.env.OLD_SECRET ?? ''];
 * ```
 */
export type TokenSecret = string | readonly string[];

function secretsOf(secret: TokenSecret): readonly string[] {
  const secrets = typeof secret === 'string' ? [secret] : secret;
  if (secrets.length === 0 || secrets.some((value) => Buffer.byteLength(value) < 32)) {
    throw new InvalidOutputEventError('secret', 'must be at least 32 bytes');
  }
  return secrets;
}

function sign(payload: string, secret: string): Buffer {
  return createHmac('sha256', secret).update(`${prefix}.${payload}`).digest();
}

/**
 * Signs a per-spawn token (HMAC-SHA256) scoped to an owner, run and spawn, the refs the spawn
 * may read, an expiry and output quotas.
 *
 * @example
 * ```ts
 * const token = issueSpawnToken({
 *   v: 1, ownerId: 'team-a', runId: 'run-7', spawnId: 'spawn-3', readRefs: ['out_3fZ8kQ1xP0aLm2Vb'],
 *   expiresAt: Date.now() + 3_600_000, maxOutputs: 16, maxOutputBytes: 64 * 2 ** 20,
 * }, process.env.WHARF_INTAKE_SECRET ?? '');
 * ```
 */
export function issueSpawnToken(claims: SpawnTokenClaims, secret: TokenSecret): string {
  const [signing] = secretsOf(secret);
  const payload = Buffer.from(JSON.stringify(spawnTokenClaimsSchema.parse(claims)), 'utf8').toString(
    'base64url',
  );
  return `${prefix}.${payload}.${sign(payload, signing ?? '').toString('base64url')}`;
}

/**
 * Checks a token's signature and expiry and returns its claims; throws
 * {@link OutputUnauthorizedError} saying what is wrong.
 *
 * @example
 * ```ts
 * const claims = verifySpawnToken(token, secret);
 * console.log(claims.spawnId);
 * ```
 */
export function verifySpawnToken(
  token: string,
  secret: TokenSecret,
  now: number = Date.now(),
): SpawnTokenClaims {
  const secrets = secretsOf(secret);
  const parts = token.split('.');
  if (parts.length !== 3 || parts[0] !== prefix || !parts[1] || !parts[2]) {
    throw new OutputUnauthorizedError('malformed token');
  }
  const [, payload, signature] = parts;
  const given = Buffer.from(signature, 'base64url');
  const valid = secrets.some((candidate) => {
    const expected = sign(payload, candidate);
    return expected.length === given.length && timingSafeEqual(expected, given);
  });
  if (!valid) throw new OutputUnauthorizedError('token signature is invalid');
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw new OutputUnauthorizedError('token payload is not JSON');
  }
  const claims = parseSpawnTokenClaims(decoded);
  if (claims === undefined) throw new OutputUnauthorizedError('token claims are malformed');
  if (claims.expiresAt <= now) {
    throw new OutputUnauthorizedError(`token expired at ${new Date(claims.expiresAt).toISOString()}`);
  }
  return claims;
}
