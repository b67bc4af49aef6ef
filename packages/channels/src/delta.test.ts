import { describe, expect, it } from 'vitest';
import { InvalidUpdateError } from './channel-error.js';
import { ChannelState } from './channel-state.js';
import { ChannelUpdate } from './channel-update.js';
import { Delta } from './delta.js';

describe('Delta', () => {
  it('sums numeric writes from 0 or the initial value', () => {
    const state = new ChannelState({ tokens: new Delta(), budget: new Delta({ initial: 100 }) });
    expect(state.get('tokens')).toBe(0);
    state.update({ tokens: 120, budget: -30 }).update({ tokens: -20 });
    expect(state.get('tokens')).toBe(100);
    expect(state.get('budget')).toBe(70);
  });

  it('sums concurrent same-step writes', () => {
    const state = new ChannelState({ tokens: new Delta() });
    state.foldSuperstep(
      1,
      [1, 2, 3, 4].map((tokens) => ChannelUpdate.from({ tokens })),
    );
    expect(state.get('tokens')).toBe(10);
  });

  it('rejects a write that is not a number with a typed error, changing nothing', () => {
    const state = new ChannelState({ tokens: new Delta() });
    const update = ChannelUpdate.fromJSON({ writes: [['tokens', '5']] });
    let caught: unknown;
    try {
      state.apply(update);
    } catch (error) {
      caught = error;
    }
    expect(InvalidUpdateError.isInstance(caught)).toBe(true);
    expect((caught as InvalidUpdateError).channel).toBe('tokens');
    expect((caught as Error).message).toContain('the string "5"');
    expect(state.get('tokens')).toBe(0);
  });

  it('rejects a total that overflows, keeping the old one', () => {
    const state = new ChannelState({ big: new Delta({ initial: Number.MAX_VALUE }) });
    expect(() => state.update({ big: Number.MAX_VALUE })).toThrow(/not finite/);
    expect(state.get('big')).toBe(Number.MAX_VALUE);
  });

  it('refuses a snapshot value that is not a number', () => {
    const state = new ChannelState({ tokens: new Delta() });
    expect(() => state.restore({ format: 'wharf-channels', version: 1, values: { tokens: [] } })).toThrow(
      /"tokens"/,
    );
  });
});
