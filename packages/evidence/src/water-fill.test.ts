import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { waterFill } from './water-fill.js';

describe('waterFill', () => {
  it('gives small claims what they need and shares the rest by weight', () => {
    expect(
      waterFill(
        [
          { demand: 100, weight: 1 },
          { demand: 10_000, weight: 1 },
        ],
        1000,
      ),
    ).toEqual([100, 900]);
    expect(
      waterFill(
        [
          { demand: 10_000, weight: 2 },
          { demand: 10_000, weight: 1 },
        ],
        900,
      ),
    ).toEqual([600, 300]);
    expect(waterFill([{ demand: 5, weight: 1 }], 1000)).toEqual([5]);
    expect(
      waterFill(
        [
          { demand: 10, weight: 1 },
          { demand: 10, weight: 1 },
        ],
        0,
      ),
    ).toEqual([0, 0]);
  });

  it('never exceeds the budget or a demand, and wastes nothing while a claim is unmet (property)', () => {
    const claim = fc.record({ demand: fc.nat(100_000), weight: fc.integer({ min: 1, max: 3 }) });
    fc.assert(
      fc.property(fc.array(claim, { maxLength: 30 }), fc.nat(200_000), (claims, budget) => {
        const allocation = waterFill(claims, budget);
        const total = allocation.reduce((sum, value) => sum + value, 0);
        expect(total).toBeLessThanOrEqual(budget);
        allocation.forEach((value, index) => {
          expect(value).toBeGreaterThanOrEqual(0);
          expect(value).toBeLessThanOrEqual(claims[index]?.demand ?? 0);
        });
        const unmet = claims.some((entry, index) => (allocation[index] ?? 0) < entry.demand);
        if (unmet) expect(total).toBe(budget);
      }),
    );
  });
});
