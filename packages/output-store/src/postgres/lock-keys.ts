import { createHash } from 'node:crypto';

/**
 * A signed 64-bit advisory lock key (as a decimal string) for a name: the first 8 bytes of
 * its SHA-256.
 *
 * @example
 * ```ts
 * await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [lockKey64('migrate:wharf')]);
 * ```
 */
export function lockKey64(name: string): string {
  return createHash('sha256').update(`wharf-output-store:${name}`).digest().readBigInt64BE(0).toString();
}

/**
 * A signed 32-bit key for a name, the first half of a two-key advisory lock.
 *
 * @example
 * ```ts
 * const space = lockKey32('blob:wharf');
 * ```
 */
export function lockKey32(name: string): number {
  return createHash('sha256').update(`wharf-output-store:${name}`).digest().readInt32BE(0);
}

/**
 * The second key of a blob's advisory lock: the first 32 bits of its address. Two addresses
 * sharing it only make one wait for the other, never remove a body that is in use.
 *
 * @example
 * ```ts
 * blobLockKey('e3b0c442…'); // -474954686
 * ```
 */
export function blobLockKey(sha256: string): number {
  return Number.parseInt(sha256.slice(0, 8), 16) | 0;
}
