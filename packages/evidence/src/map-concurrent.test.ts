import { describe, expect, it } from 'vitest';
import { mapConcurrent } from './map-concurrent.js';

describe('mapConcurrent', () => {
  it('keeps order and never runs more than the limit at once', async () => {
    let running = 0;
    let peak = 0;
    const result = await mapConcurrent([5, 1, 4, 2, 3, 0], 2, async (value) => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((resolve) => setTimeout(resolve, value));
      running--;
      return value * 10;
    });
    expect(result).toEqual([50, 10, 40, 20, 30, 0]);
    expect(peak).toBe(2);
    expect(await mapConcurrent([], 4, async (value: number) => value)).toEqual([]);
  });
});
