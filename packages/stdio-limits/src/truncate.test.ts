import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StdioLimitsError } from './stdio-limits-error.js';
import { truncateOutput, truncateToBytes } from './truncate.js';

const strategies = ['head', 'tail', 'both', 'summary'] as const;

describe('truncateOutput', () => {
  it('renders the head, tail and both markers exactly', () => {
    const content = `${'a'.repeat(1000)}${'m'.repeat(48_000)}${'z'.repeat(1000)}`;
    expect(truncateOutput(content, 1000, 'head').content).toBe(
      `--- Output (showing first 1000 bytes of 50000) ---\n${'a'.repeat(1000)}\n--- [49000 bytes truncated] ---`,
    );
    expect(truncateOutput(content, 1000, 'tail').content).toBe(
      `--- [49000 bytes truncated] ---\n${'z'.repeat(1000)}\n--- Output (showing last 1000 bytes of 50000) ---`,
    );
    expect(truncateOutput(content, 1000, 'both').content).toBe(
      `--- Output (showing first/last 500 bytes of 50000) ---\n${'a'.repeat(500)}\n--- [49000 bytes truncated] ---\n${'z'.repeat(500)}`,
    );
  });

  it('returns text at exactly the limit unchanged and flags it', () => {
    for (const strategy of strategies) {
      expect(truncateOutput('abcde', 5, strategy)).toEqual({
        content: 'abcde',
        truncated: false,
        strategy,
        originalBytes: 5,
        omittedBytes: 0,
      });
    }
  });

  it('cuts one byte over the limit', () => {
    expect(truncateOutput('abcdef', 5, 'head').content).toBe(
      '--- Output (showing first 5 bytes of 6) ---\nabcde\n--- [1 bytes truncated] ---',
    );
    expect(truncateOutput('abcdef', 5, 'tail').content).toBe(
      '--- [1 bytes truncated] ---\nbcdef\n--- Output (showing last 5 bytes of 6) ---',
    );
    // An odd limit leaves one byte unused; the count says 2, not 1.
    expect(truncateOutput('abcdef', 5, 'both').content).toBe(
      '--- Output (showing first/last 2 bytes of 6) ---\nab\n--- [2 bytes truncated] ---\nef',
    );
  });

  it('never splits a multi-byte character at the cut', () => {
    // '€' is 3 bytes: a 4-byte head of 'a€€' would end inside the second '€'.
    expect(truncateOutput('a€€', 5, 'head').content).toBe(
      '--- Output (showing first 4 bytes of 7) ---\na€\n--- [3 bytes truncated] ---',
    );
    expect(truncateOutput('€€a', 5, 'tail').content).toBe(
      '--- [3 bytes truncated] ---\n€a\n--- Output (showing last 4 bytes of 7) ---',
    );
    expect(truncateOutput('😀x😀', 8, 'both').content).toBe(
      '--- Output (showing first/last 4 bytes of 9) ---\n😀\n--- [1 bytes truncated] ---\n😀',
    );
    expect(truncateOutput('é😀é', 6, 'both').content).toBe(
      '--- Output (showing first/last 2 bytes of 8) ---\né\n--- [4 bytes truncated] ---\né',
    );
  });

  it('keeps exact counts and whole characters for any input', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 60 }),
        fc.nat(80),
        fc.constantFrom(...strategies),
        (text, max, strategy) => {
          const result = truncateOutput(text, max, strategy);
          const total = Buffer.byteLength(text);
          expect(result.originalBytes).toBe(total);
          expect(result.truncated).toBe(total > max);
          if (!result.truncated) {
            expect(result.content).toBe(text);
            return;
          }
          expect(result.content).not.toContain('\uFFFD');
          expect(result.content).toContain(`--- [${result.omittedBytes} bytes truncated] ---`);
          expect(total - result.omittedBytes).toBeLessThanOrEqual(max);
        },
      ),
    );
  });

  it('falls back from summary to both and says so', () => {
    const result = truncateOutput('x'.repeat(100), 10, 'summary');
    expect(result.strategy).toBe('both');
    expect(result.content.split('\n')[0]).toBe(
      '--- [No summarizer configured; showing first/last bytes instead of a summary] ---',
    );
    expect(result.content).toContain('--- Output (showing first/last 5 bytes of 100) ---');
  });

  it('rejects a negative or fractional limit', () => {
    for (const bad of [-1, 1.5, Number.NaN]) {
      const error = (() => {
        try {
          truncateOutput('abc', bad);
        } catch (caught) {
          return caught;
        }
        return undefined;
      })();
      expect(StdioLimitsError.isInstance(error) && error.code).toBe('INVALID_ARGUMENT');
    }
  });
});

describe('truncateToBytes', () => {
  it('keeps whole characters only', () => {
    expect(truncateToBytes('héllo', 2)).toBe('h');
    expect(truncateToBytes('héllo', 3)).toBe('hé');
    expect(truncateToBytes('abc', 10)).toBe('abc');
  });
});
