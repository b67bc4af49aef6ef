import { describe, expect, it } from 'vitest';
import { OutputForbiddenError } from '../errors.js';
import type { SpawnTokenClaims } from '../schemas.js';
import { SpawnQuota } from './spawn-quota.js';

const claims: SpawnTokenClaims = {
  v: 1,
  ownerId: 'o',
  runId: 'r',
  spawnId: 's',
  readRefs: [],
  expiresAt: Number.MAX_SAFE_INTEGER,
  maxOutputs: 2,
  maxOutputBytes: 1024,
};

describe('SpawnQuota', () => {
  it('counts uploads in flight with the stored outputs and frees a released slot', async () => {
    const quota = new SpawnQuota();
    const stored = async () => 1;
    const release = await quota.reserve(claims, 'a', stored);
    await expect(quota.reserve(claims, 'b', stored)).rejects.toSatisfy(OutputForbiddenError.isInstance);
    release();
    release();
    expect(quota.inFlight(claims)).toBe(0);
    await expect(quota.reserve(claims, 'b', stored)).resolves.toBeTypeOf('function');
  });

  it('lets requests with the same idempotency key share one slot', async () => {
    const quota = new SpawnQuota();
    const stored = async () => 1;
    const first = await quota.reserve(claims, 'same', stored);
    const retry = await quota.reserve(claims, 'same', stored);
    expect(quota.inFlight(claims)).toBe(1);
    first();
    expect(quota.inFlight(claims)).toBe(1);
    retry();
    expect(quota.inFlight(claims)).toBe(0);
  });

  it('decides concurrent reservations one at a time', async () => {
    const quota = new SpawnQuota();
    const stored = () => new Promise<number>((resolve) => setImmediate(() => resolve(0)));
    const outcomes = await Promise.allSettled(
      ['a', 'b', 'c', 'd'].map((key) => quota.reserve(claims, key, stored)),
    );
    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'rejected',
    ]);
    expect(quota.inFlight({ ...claims, spawnId: 'other' })).toBe(0);
  });
});
