import { describe, expect, it } from 'vitest';
import { runPool } from './run-pool.js';

describe('runPool', () => {
  it('keeps results in input order and never exceeds the limit', async () => {
    let inFlight = 0;
    let peak = 0;
    const delays = [30, 5, 20, 1, 10, 2, 25];
    const results = await runPool(delays, 3, async (delay, index) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((resolve) => setTimeout(resolve, delay));
      inFlight--;
      return `${index}:${delay}`;
    });
    expect(results).toEqual(delays.map((delay, index) => `${index}:${delay}`));
    expect(peak).toBe(3);
  });

  it('handles an empty list', async () => {
    expect(await runPool([], 5, async () => 1)).toEqual([]);
  });
});
