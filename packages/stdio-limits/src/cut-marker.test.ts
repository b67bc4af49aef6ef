import { describe, expect, it } from 'vitest';
import { formatCut, splitBudget } from './cut-marker.js';

describe('formatCut', () => {
  it('names unequal head and tail sizes exactly', () => {
    expect(
      formatCut({ strategy: 'both', head: 'ab\n', headBytes: 3, tail: 'z', tailBytes: 1, totalBytes: 10 }),
    ).toBe('--- Output (showing first 3/last 1 bytes of 10) ---\nab\n\n--- [6 bytes truncated] ---\nz');
  });
});

describe('splitBudget', () => {
  it('gives the whole budget to one side or splits it', () => {
    expect(splitBudget(9, 'head')).toEqual({ head: 9, tail: 0 });
    expect(splitBudget(9, 'tail')).toEqual({ head: 0, tail: 9 });
    expect(splitBudget(9, 'both')).toEqual({ head: 4, tail: 5 });
    expect(splitBudget(9, 'summary')).toEqual({ head: 4, tail: 5 });
  });
});
