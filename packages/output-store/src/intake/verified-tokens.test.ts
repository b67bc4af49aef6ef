import { describe, expect, it } from 'vitest';
import { OutputUnauthorizedError } from '../errors.js';
import type { SpawnTokenClaims } from '../schemas.js';
import { issueSpawnToken } from '../spawn-token.js';
import { VerifiedTokens } from './verified-tokens.js';

const secret = 'verified-tokens-secret-with-enough-bytes';
const claims = (spawnId: string, expiresAt = 10_000): SpawnTokenClaims => ({
  v: 1,
  ownerId: 'o',
  runId: 'r',
  spawnId,
  readRefs: [],
  expiresAt,
  maxOutputs: 4,
  maxOutputBytes: 1024,
});

describe('VerifiedTokens', () => {
  it('answers a cached token and still refuses it once expired', () => {
    const tokens = new VerifiedTokens(secret);
    const token = issueSpawnToken(claims('s', 1_000), secret);
    expect(tokens.verify(token, 0).spawnId).toBe('s');
    expect(tokens.verify(token, 999).spawnId).toBe('s');
    expect(() => tokens.verify(token, 1_000)).toThrow(OutputUnauthorizedError);
    expect(tokens.size).toBe(0);
  });

  it('keeps no token that failed and no more than its capacity', () => {
    const tokens = new VerifiedTokens(secret, 2);
    const forged = issueSpawnToken(claims('s'), 'another-secret-with-at-least-32-bytes!!');
    expect(() => tokens.verify(forged, 0)).toThrow(OutputUnauthorizedError);
    expect(tokens.size).toBe(0);
    for (const spawnId of ['a', 'b', 'c']) tokens.verify(issueSpawnToken(claims(spawnId), secret), 0);
    expect(tokens.size).toBe(2);
  });

  it('tells a tampered copy of a cached token from the cached one', () => {
    const tokens = new VerifiedTokens(secret);
    const token = issueSpawnToken(claims('s'), secret);
    tokens.verify(token, 0);
    const [prefix, payload, signature] = token.split('.');
    const tampered = `${prefix}.${payload}.${signature?.startsWith('A') ? 'B' : 'A'}${signature?.slice(1)}`;
    expect(() => tokens.verify(tampered, 0)).toThrow(OutputUnauthorizedError);
  });
});
