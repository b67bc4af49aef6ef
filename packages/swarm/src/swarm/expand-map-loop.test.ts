import { describe, expect, it } from 'vitest';
import { expandMapLoop } from './expand-map-loop.js';

describe('expandMapLoop', () => {
  it('takes a list as it is and a string one item per non-blank line', () => {
    expect(expandMapLoop([{ url: 'a' }, 2])).toEqual({ ok: true, items: [{ url: 'a' }, 2] });
    expect(expandMapLoop(' a.ts\n\nb.ts \n')).toEqual({ ok: true, items: ['a.ts', 'b.ts'] });
    expect(expandMapLoop([])).toEqual({ ok: true, items: [] });
  });

  it('reads a task output or a loop’s stored list from the store, never into the workflow', () => {
    const output = {
      outId: 'out_1',
      outIds: ['out_1'],
      status: 'ok',
      bytes: 9,
      exitCode: 0,
      preview: 'a\nb\n',
    };
    expect(expandMapLoop(output)).toEqual({ ok: true, stored: { source: 'out_1' } });
    expect(expandMapLoop({ $manifest: 'out_m', count: 3, status: 'failed' })).toEqual({
      ok: true,
      stored: { source: 'out_m', status: 'failed' },
    });
    expect(expandMapLoop({ ...output, outId: null, outIds: [] })).toEqual({
      ok: false,
      reason: 'loop.over is the output of a task that stored nothing',
    });
  });

  it('refuses other values and lists over max_items, naming what it found', () => {
    expect(expandMapLoop({ a: 1 })).toEqual({ ok: false, reason: 'loop.over is an object, not a list' });
    expect(expandMapLoop(3)).toEqual({ ok: false, reason: 'loop.over is a number (3), not a list' });
    expect(expandMapLoop(null)).toEqual({ ok: false, reason: 'loop.over is null, not a list' });
    expect(expandMapLoop([1, 2, 3], 2)).toEqual({
      ok: false,
      reason: 'loop.over has 3 items, more than max_items 2',
    });
    expect(expandMapLoop({ $manifest: 'out_m', count: 3, status: 'ok' }, 2)).toMatchObject({ ok: false });
  });
});
