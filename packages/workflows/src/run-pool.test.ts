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

describe('runPool with shouldStop', () => {
  it('starts no item once asked to stop, lets the running ones finish, returns the started prefix', async () => {
    const started: number[] = [];
    const items = Array.from({ length: 10 }, (_, index) => index);
    const results = await runPool(
      items,
      2,
      async (item) => {
        started.push(item);
        await new Promise((resolve) => setTimeout(resolve, 1));
        return item * 10;
      },
      { shouldStop: () => started.length >= 4 },
    );
    expect(started).toEqual([0, 1, 2, 3]);
    expect(results).toEqual([0, 10, 20, 30]);
  });

  it('always starts the first item, so a run makes progress', async () => {
    const results = await runPool([7, 8], 1, async (item) => item, { shouldStop: () => true });
    expect(results).toEqual([7]);
  });

  it('runs everything when never asked to stop', async () => {
    expect(await runPool([1, 2, 3], 2, async (item) => item, { shouldStop: () => false })).toEqual([1, 2, 3]);
  });
});
