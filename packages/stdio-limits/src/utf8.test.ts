import { describe, expect, it } from 'vitest';
import {
  countNewlines,
  preferLineEndBefore,
  preferLineStartAfter,
  utf8CutAfter,
  utf8CutBefore,
} from './utf8.js';

describe('utf8 cuts', () => {
  const text = Buffer.from('a€b'); // 'a' (1) + '€' (3) + 'b' (1)

  it('moves a prefix cut back before a split character', () => {
    expect([1, 2, 3, 4].map((index) => utf8CutBefore(text, index))).toEqual([1, 1, 1, 4]);
  });

  it('moves a suffix start forward past a split character', () => {
    expect([1, 2, 3, 4].map((index) => utf8CutAfter(text, index))).toEqual([1, 4, 4, 4]);
  });

  it('handles 4-byte characters', () => {
    const emoji = Buffer.from('😀😀');
    expect(utf8CutBefore(emoji, 7)).toBe(4);
    expect(utf8CutAfter(emoji, 1)).toBe(4);
  });

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
});
