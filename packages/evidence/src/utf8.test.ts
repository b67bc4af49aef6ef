import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clampUtf8, completePrefixLength, decodeUtf8, encodeUtf8, utf8CutAfter, utf8Length } from './utf8.js';

describe('utf8 helpers', () => {
  it('measures, clamps and decodes without growing', () => {
    expect(utf8Length('a€🚀')).toBe(8);
    expect(utf8Length('\uD800x')).toBe(4);
    expect(clampUtf8('a€🚀', 5)).toBe('a€');
    expect(decodeUtf8(new Uint8Array([0x6f, 0x6b, 0xff, 0xe2, 0x82]))).toBe('ok??');
  });

  it('cuts byte slices only between characters (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.nat(), fc.nat(), (text, first, second) => {
        const bytes = encodeUtf8(text);
        const start = Math.min(first, second, bytes.length);
        const end = Math.min(Math.max(first, second), bytes.length);
        const slice = bytes.subarray(start, end);
        const skip = start > 0 ? utf8CutAfter(slice, 0) : 0;
        const kept = slice.subarray(
          skip,
          Math.max(skip, end < bytes.length ? completePrefixLength(slice) : slice.length),
        );
        const decoded = decodeUtf8(kept);
        expect(decoded).not.toContain('?');
        expect(text).toContain(decoded);
        expect(utf8Length(clampUtf8(text, first % 50))).toBeLessThanOrEqual(first % 50);
      }),
    );
  });
});
