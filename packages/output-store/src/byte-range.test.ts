import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { resolveRange } from './byte-range.js';
import { parseRangeHeader } from './intake/range-header.js';

describe('byte ranges', () => {
  it('resolveRange accepts exactly the ranges inside the body', () => {
    fc.assert(
      fc.property(
        fc.nat(10_000),
        fc.integer({ min: -5, max: 10_005 }),
        fc.integer({ min: -5, max: 10_005 }),
        (size, start, end) => {
          const inside = start >= 0 && end <= size && start <= end;
          if (inside) expect(resolveRange({ start, end }, size)).toEqual({ start, end });
          else
            expect(() => resolveRange({ start, end }, size)).toThrow(
              expect.objectContaining({ code: 'INVALID_RANGE' }),
            );
        },
      ),
    );
  });

  it('a satisfiable Range header always lands inside the body', () => {
    fc.assert(
      fc.property(
        fc.nat(10_000),
        fc.option(fc.nat(20_000)),
        fc.option(fc.nat(20_000)),
        (size, first, last) => {
          const header = `bytes=${first ?? ''}-${last ?? ''}`;
          const result = parseRangeHeader(header, size);
          if (result.kind === 'partial') {
            expect(result.start).toBeGreaterThanOrEqual(0);
            expect(result.end).toBeLessThanOrEqual(size);
            expect(result.start).toBeLessThan(result.end);
          }
        },
      ),
    );
  });
});
