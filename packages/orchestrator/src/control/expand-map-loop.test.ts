import { describe, expect, it } from 'vitest';
import { expandMapLoop, MAX_MAP_ITEMS } from './expand-map-loop.js';

describe('expandMapLoop', () => {
  it('takes a list as it is and a string one item per non-blank line', () => {
    expect(expandMapLoop([{ url: 'a' }, 2])).toEqual({ ok: true, items: [{ url: 'a' }, 2] });
    expect(expandMapLoop(' a.ts\n\nb.ts \n')).toEqual({ ok: true, items: ['a.ts', 'b.ts'] });
    expect(expandMapLoop([])).toEqual({ ok: true, items: [] });
  });

  it('refuses other values and oversized lists, naming what it found', () => {
    expect(expandMapLoop({ a: 1 })).toEqual({ ok: false, reason: 'loop.over is an object, not a list' });
    expect(expandMapLoop(3)).toEqual({ ok: false, reason: 'loop.over is a number (3), not a list' });
    expect(expandMapLoop(null)).toEqual({ ok: false, reason: 'loop.over is null, not a list' });
    const big = expandMapLoop(Array.from({ length: MAX_MAP_ITEMS + 1 }, (_, index) => index));
    expect(big).toEqual({
      ok: false,
      reason: `loop.over has ${MAX_MAP_ITEMS + 1} items, more than ${MAX_MAP_ITEMS}`,
    });
  });
});
