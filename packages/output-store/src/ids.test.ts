import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isOutId, newOutId } from './ids.js';

describe('newOutId', () => {
  it('gives well-formed ids that do not repeat across refills of its random pool', () => {
    const ids = Array.from({ length: 2_000 }, () => newOutId());
    expect(ids.every((id) => id.length === 20)).toBe(true);
    expect(ids.every(isOutId)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('sorts ids made later after earlier ones, as text and across every time digit', () => {
    const start = Date.now() + 1_000;
    const times = [0, 1, 2, 63, 64, 65, 4_095, 4_096, 2 ** 18, 2 ** 24 + 7, 2 ** 30, 2 ** 36 + 1].map(
      (offset) => start + offset,
    );
    const ids = times.map((time) => newOutId(time));
    expect(ids.every(isOutId)).toBe(true);
    expect([...ids].sort()).toEqual(ids);
  });

  it('never repeats an id made in one millisecond and never goes back when the clock does', () => {
    const time = Date.now() + 2 ** 37;
    const sameMs = Array.from({ length: 5_000 }, () => newOutId(time));
    expect(new Set(sameMs).size).toBe(sameMs.length);
    expect(new Set(sameMs.map((id) => id.slice(0, 11))).size).toBe(1);
    const afterSetBack = newOutId(time - 60_000);
    expect(afterSetBack.slice(0, 11)).toBe(sameMs[0]?.slice(0, 11));
    expect(sameMs).not.toContain(afterSetBack);
  });
});

describe('isOutId', () => {
  it('accepts the fully random ids stores made before ids were time-ordered', () => {
    for (let index = 0; index < 100; index++)
      expect(isOutId(`out_${randomBytes(12).toString('base64url')}`)).toBe(true);
  });

  it('refuses anything else', () => {
    for (const value of [
      'out_',
      'out_short',
      `out_${'a'.repeat(17)}`,
      'in_0123456789abcdef',
      'out_0123456789abcde/',
      '../etc/passwd',
    ])
      expect(isOutId(value), value).toBe(false);
  });
});
