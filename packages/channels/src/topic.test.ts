import { describe, expect, it } from 'vitest';
import { ChannelState } from './channel-state.js';
import { ChannelUpdate } from './channel-update.js';
import { Topic } from './topic.js';

describe('Topic', () => {
  it('starts as an empty list and appends across steps', () => {
    const state = new ChannelState({ log: new Topic<string>() });
    expect(state.get('log')).toEqual([]);
    expect(state.isReady('log')).toBe(false);
    state.apply(ChannelUpdate.from({ log: 'a' }).atStep(1));
    state.apply(ChannelUpdate.from({ log: 'b' }).atStep(2));
    expect(state.get('log')).toEqual(['a', 'b']);
    expect(state.isReady('log')).toBe(true);
  });

  it('spreads array writes by default', () => {
    const state = new ChannelState({ log: new Topic<string>() });
    state.update({ log: ['a', 'b'] }).update({ log: 'c' });
    expect(state.get('log')).toEqual(['a', 'b', 'c']);
  });

  it("appends an array write as one item with arrays: 'item'", () => {
    const state = new ChannelState({ batches: new Topic<string[]>({ arrays: 'item' }) });
    state.update({ batches: ['a', 'b'] }).update({ batches: [] });
    expect(state.get('batches')).toEqual([['a', 'b'], []]);
  });

  it('folds concurrent same-step writes in update order', () => {
    const state = new ChannelState({ log: new Topic<string>() });
    state.foldSuperstep(1, [
      ChannelUpdate.from({ log: 'first' }),
      ChannelUpdate.from({ log: ['second', 'third'] }),
      ChannelUpdate.from({ log: 'fourth' }),
    ]);
    expect(state.get('log')).toEqual(['first', 'second', 'third', 'fourth']);
  });

  it('hands out read-only views and copies: neither a read nor a snapshot can change the state', () => {
    const state = new ChannelState({ log: new Topic<{ n: number }>() });
    state.update({ log: { n: 1 } });
    const read = state.get('log') as { n: number }[];
    expect(() => read.push({ n: 2 })).toThrow(TypeError);
    expect(() => {
      read[0] = { n: 9 };
    }).toThrow(TypeError);
    expect(() => read.splice(0, 1)).toThrow(TypeError);
    expect(Object.isFrozen(read[0])).toBe(true);
    const snapshot = state.snapshot().values.log as unknown[];
    snapshot.push('sneaked in');
    expect(state.get('log')).toEqual([{ n: 1 }]);
    state.update({ log: { n: 2 } });
    expect(read).toEqual([{ n: 1 }]);
    expect(state.get('log')).toEqual([{ n: 1 }, { n: 2 }]);
  });

  it('keeps every earlier read as it was while the topic grows, across steps, resets and restores', () => {
    const state = new ChannelState({ log: new Topic<number>() });
    const reads: (readonly number[] | undefined)[] = [];
    const expected: number[][] = [];
    for (let step = 1; step <= 300; step++) {
      state.apply(ChannelUpdate.from({ log: [step, -step] }).atStep(step));
      reads.push(state.get('log'));
      expected.push(Array.from({ length: step }, (_, index) => [index + 1, -(index + 1)]).flat());
    }
    expect(state.get('log')).toBe(reads[reads.length - 1]); // unchanged: the same view again
    const beforeReset = state.get('log');
    state.reset('log');
    state.update({ log: 'after' as unknown as number });
    state.restore({ format: 'wharf-channels', version: 1, values: { log: [7] } });
    state.update({ log: 8 });
    for (const [index, read] of reads.entries()) expect(read).toEqual(expected[index]);
    expect(beforeReset).toHaveLength(600);
    expect(state.get('log')).toEqual([7, 8]);
  });

  it('is emptied by reset', () => {
    const state = new ChannelState({ log: new Topic<string>() });
    state.update({ log: ['a', 'b'] }).reset('log');
    expect(state.get('log')).toEqual([]);
    state.update({ log: 'c' });
    expect(state.get('log')).toEqual(['c']);
  });

  it('round-trips 100,000 items through a JSON snapshot with a size proportional to them', () => {
    const items = Array.from({ length: 100_000 }, (_, index) => `item-${index}`);
    const state = new ChannelState({ log: new Topic<string>() });
    state.update({ log: items });
    const text = JSON.stringify(state.snapshot());
    expect(text.length).toBeLessThan(JSON.stringify(items).length + 100);
    const restored = new ChannelState({ log: new Topic<string>() }).restore(JSON.parse(text));
    expect(restored.get('log')).toEqual(items);
    restored.update({ log: 'next' });
    expect(restored.get('log')).toHaveLength(100_001);
  });

  it.each([0, 1, 1_024, 1_025, 100_000])(
    'round-trips a topic of %i items exactly through both checkpoint forms, reads included',
    (size) => {
      const items = Array.from({ length: size }, (_, index) =>
        index % 2 === 0 ? `item ${index}` : { index },
      );
      const state = new ChannelState({ log: new Topic<unknown>() });
      if (size > 0) state.update({ log: items as never });
      const before = state.get('log');
      const viaText = new ChannelState({ log: new Topic<unknown>() }).restoreText(state.snapshotText());
      const viaObject = new ChannelState({ log: new Topic<unknown>() }).restore(
        JSON.parse(JSON.stringify(state.snapshot())),
      );
      for (const restored of [viaText, viaObject]) {
        expect(restored.get('log')).toEqual(items);
        expect(restored.snapshotText()).toBe(state.snapshotText());
        restored.update({ log: 'next' });
        expect(restored.get('log')).toHaveLength(size + 1);
      }
      expect(before).toEqual(items);
      expect(JSON.stringify(before)).toBe(JSON.stringify(items));
    },
    // 100,000 items compared deeply four times: seconds on a loaded 2-core machine.
    30_000,
  );

  it('refuses a snapshot value that is not a list', () => {
    const state = new ChannelState({ log: new Topic<string>() });
    expect(() => state.restore({ format: 'wharf-channels', version: 1, values: { log: 'x' } })).toThrow(
      /channel "log".*must be an array/,
    );
  });
});
