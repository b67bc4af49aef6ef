import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  clampUtf8,
  completePrefixLength,
  decodeUtf8,
  encodeUtf8,
  utf8CutAfter,
  utf8CutBefore,
  utf8Length,
} from './utf8.js';

describe('utf8 cuts', () => {
  const text = encodeUtf8('a€b'); // 'a' (1) + '€' (3) + 'b' (1)

  it('moves a prefix cut back before a split character', () => {
    expect([1, 2, 3, 4].map((index) => utf8CutBefore(text, index))).toEqual([1, 1, 1, 4]);
  });

  it('moves a suffix start forward past a split character', () => {
    expect([1, 2, 3, 4].map((index) => utf8CutAfter(text, index))).toEqual([1, 4, 4, 4]);
  });

  it('handles 4-byte characters', () => {
    const emoji = encodeUtf8('😀😀');
    expect(utf8CutBefore(emoji, 7)).toBe(4);
    expect(utf8CutAfter(emoji, 1)).toBe(4);
  });

  it('moves over at most three continuation bytes: bytes that are not UTF-8 are cut near where asked', () => {
    const garbage = new Uint8Array(16).fill(0x80);
    expect(utf8CutBefore(garbage, 10)).toBe(7);
    expect(utf8CutAfter(garbage, 10)).toBe(13);
  });

  it('keeps a head read without its following bytes to whole characters', () => {
    expect(completePrefixLength(encodeUtf8('aé').subarray(0, 2))).toBe(1);
    expect(completePrefixLength(encodeUtf8('aé'))).toBe(3);
    expect(completePrefixLength(encodeUtf8('🚀').subarray(0, 3))).toBe(0);
  });
});

describe('utf8 sizes and text', () => {
  it('measures UTF-8 as TextEncoder does, lone surrogates included', () => {
    for (const sample of ['', 'a€🚀', '\uD800x', '\uD800€', '\uDC00\uD800', '\uD83D', 'é\uD83D\uDE80']) {
      expect(utf8Length(sample)).toBe(encodeUtf8(sample).length);
    }
  });

  it('clamps and decodes without growing', () => {
    expect(clampUtf8('a€🚀', 5)).toBe('a€');
    expect(clampUtf8('a€🚀', 0)).toBe('');
    expect(decodeUtf8(new Uint8Array([0x6f, 0x6b, 0xff, 0xe2, 0x82]))).toBe('ok??');
  });

  it('cuts byte slices only between characters (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.nat(), fc.nat(), (sample, first, second) => {
        const bytes = encodeUtf8(sample);
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
        expect(sample).toContain(decoded);
        expect(utf8Length(clampUtf8(sample, first % 50))).toBeLessThanOrEqual(first % 50);
      }),
    );
  });
});
