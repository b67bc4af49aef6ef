import { describe, expect, it } from 'vitest';
import { BinaryAggregate } from './binary-aggregate.js';
import { ChannelError } from './channel-error.js';
import { ChannelState } from './channel-state.js';
import { ChannelUpdate } from './channel-update.js';
import { LastValue } from './last-value.js';
import { Topic } from './topic.js';

const concat = (current: string, incoming: string) => `${current}${incoming}`;

describe('BinaryAggregate', () => {
  it('takes the first write as the value, then folds', () => {
    const state = new ChannelState({ text: new BinaryAggregate<string>(concat) });
    expect(state.get('text')).toBeUndefined();
    state.update({ text: 'a' }).update({ text: 'b' }).update({ text: 'c' });
    expect(state.get('text')).toBe('abc');
  });

  it('folds from an initial value when given one', () => {
    const state = new ChannelState({ total: new BinaryAggregate<number>((a, b) => a + b, { initial: 10 }) });
    expect(state.get('total')).toBe(10);
    state.update({ total: 5 });
    expect(state.get('total')).toBe(15);
  });

  it('folds concurrent same-step writes in update order (a non-commutative fold shows it)', () => {
    const state = new ChannelState({ text: new BinaryAggregate<string>(concat) });
    state.foldSuperstep(1, [
      ChannelUpdate.from({ text: 'x' }),
      ChannelUpdate.from({ text: 'y' }),
      ChannelUpdate.from({ text: 'z' }),
    ]);
    expect(state.get('text')).toBe('xyz');
  });

  it('supports structured folds and freezes their results', () => {
    const state = new ChannelState({
      seen: new BinaryAggregate<string[]>((current, incoming) => [...new Set([...current, ...incoming])]),
    });
    state.update({ seen: ['a', 'b'] }).update({ seen: ['b', 'c'] });
    const seen = state.get('seen');
    expect(seen).toEqual(['a', 'b', 'c']);
    expect(Object.isFrozen(seen)).toBe(true);
  });

  it('rejects the whole update, changing nothing, when the fold throws', () => {
    const state = new ChannelState({
      log: new Topic<string>(),
      total: new BinaryAggregate<number>((a, b) => {
        if (b < 0) throw new Error('negative increment');
        return a + b;
      }),
      plan: new LastValue<string>(),
    });
    state.update({ total: 1 });
    let caught: unknown;
    try {
      state.apply(ChannelUpdate.from({ log: 'kept?', total: -1, plan: 'p' }).atStep(1));
    } catch (error) {
      caught = error;
    }
    expect(ChannelError.isInstance(caught) && caught.code).toBe('MERGE_FAILED');
    expect((caught as Error).message).toContain('"total"');
    expect((caught as Error).message).toContain('negative increment');
    expect(state.get('log')).toEqual([]);
    expect(state.get('total')).toBe(1);
    expect(state.get('plan')).toBeUndefined();
    expect(state.step).toBeUndefined();
  });

  it('rejects a fold result that is not JSON', () => {
    const state = new ChannelState({ bad: new BinaryAggregate<number>(() => Number.NaN) });
    state.update({ bad: 1 });
    expect(() => state.update({ bad: 2 })).toThrow(/"bad".*NaN/);
    expect(state.get('bad')).toBe(1);
  });
});
