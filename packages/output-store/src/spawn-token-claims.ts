import { type SpawnTokenClaims, spawnTokenClaimsSchema } from './schemas.js';
import { unstorableReason } from './storable-text.js';

/** The keys of {@link spawnTokenClaimsSchema}, in its order. */
const claimKeys: ReadonlySet<string> = new Set(Object.keys(spawnTokenClaimsSchema.shape));

/** An id as the schema's `id` takes it: 1–256 characters, no NUL, no lone surrogate. */
function isId(value: unknown): value is string {
  return (
    typeof value === 'string' &&
    value.length >= 1 &&
    value.length <= 256 &&
    unstorableReason(value) === undefined
  );
}

function isPositiveInteger(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) > 0;
}

function isStringArray(
  value: unknown,
  maxLength: number,
  item: (entry: unknown) => boolean,
): value is string[] {
  if (!Array.isArray(value) || value.length > maxLength) return false;
  for (const entry of value) if (!item(entry)) return false;
  return true;
}

/**
 * The claims of a token payload as the schema would take them, checked field by field without
 * building zod's result: what every POST's token needs, in a fraction of the time and garbage.
 * Undefined for anything it does not accept outright (an unknown key, a wrong type), which the
 * schema then decides on.
 */
function plainClaims(value: unknown): SpawnTokenClaims | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  for (const key of Object.keys(value)) if (!claimKeys.has(key)) return undefined;
  const {
    v,
    ownerId,
    runId,
    spawnId,
    agent,
    readRefs,
    readRun,
    readRuns,
    expiresAt,
    maxOutputs,
    maxOutputBytes,
  } = value as Record<string, unknown>;
  if (v !== 1 || !isId(ownerId) || !isId(runId) || !isId(spawnId)) return undefined;
  if (agent !== undefined && !isId(agent)) return undefined;
  if (!isStringArray(readRefs, 10_000, (entry) => typeof entry === 'string')) return undefined;
  if (readRun !== undefined && typeof readRun !== 'boolean') return undefined;
  if (readRuns !== undefined && !isStringArray(readRuns, 100, isId)) return undefined;
  if (
    !Number.isSafeInteger(expiresAt) ||
    !isPositiveInteger(maxOutputs) ||
    !isPositiveInteger(maxOutputBytes)
  )
    return undefined;
  // The schema's key order, and only the optional keys given, as zod's result has them.
  return {
    v,
    ownerId,
    runId,
    spawnId,
    ...(agent === undefined ? {} : { agent }),
    readRefs: readRefs.slice(),
    ...(readRun === undefined ? {} : { readRun }),
    ...(readRuns === undefined ? {} : { readRuns: readRuns.slice() }),
    expiresAt: expiresAt as number,
    maxOutputs,
    maxOutputBytes,
  };
}

/**
 * Validates a spawn token's decoded payload against {@link spawnTokenClaimsSchema}: the claims,
 * or `undefined` when the schema refuses them. A payload of exactly the schema's shape (every
 * token `issueSpawnToken` signs) is checked directly, without zod's parse, since the intake
 * checks one on every POST whose token it has not seen; anything else goes through the schema
 * itself, so both accept the same payloads and answer the same claims.
 *
 * @example
 * ```ts
 * const claims = parseSpawnTokenClaims(JSON.parse(payloadText));
 * if (claims === undefined) throw new OutputUnauthorizedError('token claims are malformed');
 * ```
 */
export function parseSpawnTokenClaims(value: unknown): SpawnTokenClaims | undefined {
  const plain = plainClaims(value);
  if (plain !== undefined) return plain;
  const parsed = spawnTokenClaimsSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}
