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

  it('hands out frozen copies: neither a read nor a snapshot can change the state', () => {
    const state = new ChannelState({ log: new Topic<{ n: number }>() });
    state.update({ log: { n: 1 } });
    const read = state.get('log') as { n: number }[];
    expect(Object.isFrozen(read)).toBe(true);
    expect(() => read.push({ n: 2 })).toThrow(TypeError);
    const snapshot = state.snapshot().values.log as unknown[];
    snapshot.push('sneaked in');
    expect(state.get('log')).toEqual([{ n: 1 }]);
    state.update({ log: { n: 2 } });
    expect(read).toEqual([{ n: 1 }]);
    expect(state.get('log')).toEqual([{ n: 1 }, { n: 2 }]);
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

  it('refuses a snapshot value that is not a list', () => {
    const state = new ChannelState({ log: new Topic<string>() });
    expect(() => state.restore({ format: 'wharf-channels', version: 1, values: { log: 'x' } })).toThrow(
      /channel "log".*must be an array/,
    );
  });
});
