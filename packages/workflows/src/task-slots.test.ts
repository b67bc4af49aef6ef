import { describe, expect, it } from 'vitest';
import { loopCaps, TaskSlots } from './task-slots.js';

/** A piece of work the test ends by hand. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open = () => {};
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('TaskSlots', () => {
  it('runs at most the cap of one task at once, waiters in the order they asked', async () => {
    const slots = new TaskSlots({ each: 2 });
    const gates = [gate(), gate(), gate(), gate()];
    const started: number[] = [];
    let peak = 0;
    const all = gates.map((item, index) =>
      slots.run('each', async () => {
        started.push(index);
        peak = Math.max(peak, slots.running('each'));
        await item.promise;
        return index;
      }),
    );
    await tick();
    expect(started).toEqual([0, 1]);
    gates[1]?.open();
    await tick();
    expect(started).toEqual([0, 1, 2]);
    gates[0]?.open();
    gates[2]?.open();
    gates[3]?.open();
    expect(await Promise.all(all)).toEqual([0, 1, 2, 3]);
    expect(started).toEqual([0, 1, 2, 3]);
    expect(peak).toBe(2);
    expect(slots.running('each')).toBe(0);
  });

  it('frees the slot when the work throws, and leaves tasks without a cap alone', async () => {
    const slots = new TaskSlots({ each: 1 });
    await expect(slots.run('each', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(slots.running('each')).toBe(0);
    const free = [gate(), gate()];
    const runs = free.map((item) => slots.run('other', () => item.promise));
    for (const item of free) item.open();
    await Promise.all(runs);
    expect(slots.running('other')).toBe(0);
  });

  it('reads the caps from loop.max_concurrency', () => {
    expect(
      loopCaps({
        a: { loop: { max_concurrency: 3 } },
        b: { loop: {} },
        c: {},
      }),
    ).toEqual({ a: 3 });
  });
});
