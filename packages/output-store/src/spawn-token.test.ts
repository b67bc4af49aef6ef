import { describe, expect, it } from 'vitest';
import type { SpawnTokenClaims } from './schemas.js';
import { issueSpawnToken, verifySpawnToken } from './spawn-token.js';

const secret = 'a-test-secret-that-is-long-enough-1234';
const claims: SpawnTokenClaims = {
  v: 1,
  ownerId: 'o',
  runId: 'r',
  spawnId: 's',
  readRefs: ['out_AAAAAAAAAAAAAAAA'],
  expiresAt: 2_000,
  maxOutputs: 3,
  maxOutputBytes: 1024,
};

describe('spawn tokens', () => {
  it('round-trips claims while valid', () => {
    expect(verifySpawnToken(issueSpawnToken(claims, secret), secret, 1_000)).toEqual(claims);
  });

  it('refuses expired, tampered, foreign and malformed tokens', () => {
    const token = issueSpawnToken(claims, secret);
    expect(() => verifySpawnToken(token, secret, 2_000)).toThrow(/expired/);
    const [head, payload, signature] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ ...claims, ownerId: 'other' })).toString('base64url');
    expect(() => verifySpawnToken(`${head}.${forged}.${signature}`, secret, 1_000)).toThrow(/signature/);
    expect(() => verifySpawnToken(token, 'another-secret-that-is-long-enough-99', 1_000)).toThrow(
      /signature/,
    );
    expect(() => verifySpawnToken(`${head}.${payload}`, secret, 1_000)).toThrow(/malformed/);
    expect(() => verifySpawnToken('garbage', secret, 1_000)).toThrow(
      expect.objectContaining({ code: 'UNAUTHORIZED' }),
    );
  });

  it('verifies with any rotated secret and signs with the first', () => {
    const old = issueSpawnToken(claims, secret);
    const next = 'the-next-secret-that-is-long-enough-5678';
    expect(verifySpawnToken(old, [next, secret], 1_000).spawnId).toBe('s');
    expect(() => verifySpawnToken(issueSpawnToken(claims, [next, secret]), secret, 1_000)).toThrow(
      /signature/,
    );
  });

  it('refuses short secrets', () => {
    expect(() => issueSpawnToken(claims, 'short')).toThrow(
      expect.objectContaining({ code: 'INVALID_EVENT', field: 'secret' }),
    );
  });
});
