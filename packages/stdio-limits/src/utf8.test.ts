import { describe, expect, it } from 'vitest';
import { countNewlines, preferLineEndBefore, preferLineStartAfter } from './utf8.js';

describe('line-aware cuts', () => {
  it('prefers a newline within the window and keeps the cut otherwise', () => {
    const lines = Buffer.from('first line\nsecond line\nthird');
    expect(preferLineEndBefore(lines, 26, 8)).toBe(23);
    expect(preferLineEndBefore(lines, 26, 2)).toBe(26);
    expect(preferLineStartAfter(lines, 13, 12)).toBe(23);
    expect(preferLineStartAfter(lines, 13, 3)).toBe(13);
  });

  it('counts newlines', () => {
    expect(countNewlines(Buffer.from('\n\na\nb'))).toBe(3);
    expect(countNewlines(Buffer.alloc(0))).toBe(0);
  });

  it('counts newlines at every alignment, next to look-alike bytes', () => {
    // Bytes one bit away from a newline (0x0b, 0x08, 0x8a, 0x4a) must not count.
    const alphabet = [0x0a, 0x0b, 0x08, 0x8a, 0x4a, 0x00, 0xff, 0x61];
    let seed = 7;
    const backing = Buffer.alloc(4096);
    for (let index = 0; index < backing.length; index++) {
      seed = (seed * 1103515245 + 12345) >>> 0;
      backing[index] = alphabet[seed >>> 29] ?? 0x61;
    }
    for (const offset of [0, 1, 2, 3, 5]) {
      for (const length of [0, 1, 3, 4, 7, 8, 9, 63, 1000, 4000]) {
        const bytes = backing.subarray(offset, offset + length);
        const expected = bytes.reduce((sum, byte) => sum + (byte === 0x0a ? 1 : 0), 0);
        expect(countNewlines(bytes), `offset ${offset}, length ${length}`).toBe(expected);
      }
    }
    expect(countNewlines(Buffer.alloc(1 << 16, 0x0a))).toBe(1 << 16);
  });
});
