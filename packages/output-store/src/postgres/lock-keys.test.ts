import { describe, expect, it } from 'vitest';
import { blobLockKey, lockKey32, lockKey64 } from './lock-keys.js';

describe('advisory lock keys', () => {
  it('gives PostgreSQL integers in range, the same for the same name and apart for others', () => {
    const key = BigInt(lockKey64('migrate:wharf'));
    expect(key >= -(2n ** 63n) && key < 2n ** 63n).toBe(true);
    expect(lockKey64('migrate:wharf')).toBe(lockKey64('migrate:wharf'));
    expect(lockKey64('migrate:other')).not.toBe(lockKey64('migrate:wharf'));
    const space = lockKey32('blob:wharf');
    expect(Number.isInteger(space) && space >= -(2 ** 31) && space < 2 ** 31).toBe(true);
    expect(lockKey32('blob:other')).not.toBe(space);
  });

  it('keys a blob by the first 32 bits of its address, as a signed int4', () => {
    expect(blobLockKey(`${'0'.repeat(7)}1${'a'.repeat(56)}`)).toBe(1);
    expect(blobLockKey(`ffffffff${'0'.repeat(56)}`)).toBe(-1);
    expect(blobLockKey(`80000000${'0'.repeat(56)}`)).toBe(-(2 ** 31));
  });
});
