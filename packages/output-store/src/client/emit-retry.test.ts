import { describe, expect, it } from 'vitest';
import { emitRetryPolicy, isRetryableStatus, retryDelayMs } from './emit-retry.js';

describe('EMIT retry policy', () => {
  it('honours Retry-After, never earlier, with at most 20 % jitter on top', () => {
    const policy = emitRetryPolicy();
    expect(retryDelayMs({ attempt: 3, retryAfterMs: 1000, policy, random: () => 0 })).toBe(1000);
    expect(retryDelayMs({ attempt: 3, retryAfterMs: 1000, policy, random: () => 0.999 })).toBe(1200);
  });

  it('backs off exponentially with full jitter up to maxDelayMs when Retry-After is absent', () => {
    const policy = emitRetryPolicy({ baseDelayMs: 100, maxDelayMs: 1000 });
    const top = (attempt: number) =>
      retryDelayMs({ attempt, retryAfterMs: undefined, policy, random: () => 1 });
    expect([1, 2, 3, 4, 5, 6].map(top)).toEqual([100, 200, 400, 800, 1000, 1000]);
    expect(retryDelayMs({ attempt: 4, retryAfterMs: undefined, policy, random: () => 0.5 })).toBe(400);
  });

  it('retries busy answers only and refuses nonsense bounds', () => {
    expect([503, 429, 500, 409, 201].map(isRetryableStatus)).toEqual([true, true, false, false, false]);
    expect(() => emitRetryPolicy({ maxAttempts: 0 })).toThrow(/retry\.maxAttempts/);
    expect(() => emitRetryPolicy({ maxElapsedMs: -1 })).toThrow(/retry\.maxElapsedMs/);
  });
});
