import { describe, expect, it } from 'vitest';
import { isOutId, newOutId } from './ids.js';

describe('newOutId', () => {
  it('gives well-formed ids that do not repeat across refills of its random pool', () => {
    const ids = Array.from({ length: 2_000 }, () => newOutId());
    expect(ids.every(isOutId)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
