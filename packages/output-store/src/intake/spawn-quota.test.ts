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

  describe('with isStored (no lookup before reserving)', () => {
    it('asks nothing while the quota has room', async () => {
      const quota = new SpawnQuota();
      const asked: string[] = [];
      const release = await quota.reserve(
        claims,
        'a',
        async () => 0,
        async (key) => {
          asked.push(key);
          return false;
        },
      );
      release();
      expect(asked).toEqual([]);
    });

    it('refuses a new key when the stored outputs fill the quota, and passes a replayed one', async () => {
      const quota = new SpawnQuota();
      const storedKeys = new Set(['a', 'b']);
      const isStored = async (key: string) => storedKeys.has(key);
      await expect(quota.reserve(claims, 'c', async () => 2, isStored)).rejects.toSatisfy(
        OutputForbiddenError.isInstance,
      );
      const replay = await quota.reserve(claims, 'a', async () => 2, isStored);
      expect(quota.inFlight(claims)).toBe(1);
      replay();
    });

    it('does not let a replay in flight take the slot of a new output', async () => {
      const quota = new SpawnQuota();
      const storedKeys = new Set(['a']);
      const isStored = async (key: string) => storedKeys.has(key);
      // 'a' is stored (1 of 2); its replay in flight must not make 'b' look like a third.
      const replay = await quota.reserve(claims, 'a', async () => 1, isStored);
      const fresh = await quota.reserve(claims, 'b', async () => 1, isStored);
      await expect(quota.reserve(claims, 'c', async () => 1, isStored)).rejects.toSatisfy(
        OutputForbiddenError.isInstance,
      );
      replay();
      fresh();
    });
  });
});
