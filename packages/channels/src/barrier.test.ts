import { describe, expect, it } from 'vitest';
import { Barrier } from './barrier.js';
import { ChannelError } from './channel-error.js';
import { ChannelState } from './channel-state.js';
import { ChannelUpdate } from './channel-update.js';

describe('Barrier', () => {
  it('is ready once the expected number of arrivals is in', () => {
    const state = new ChannelState({ join: new Barrier(3) });
    state.update({ join: 'a' }).update({ join: 'b' });
    expect(state.isReady('join')).toBe(false);
    state.update({ join: 'c' });
    expect(state.isReady('join')).toBe(true);
    expect(state.get('join')).toEqual(['a', 'b', 'c']);
  });

  it('takes concurrent arrivals in update order', () => {
    const state = new ChannelState({ join: new Barrier(2) });
    state.foldSuperstep(1, [
      ChannelUpdate.from({ join: { from: 'left' } }),
      ChannelUpdate.from({ join: 'right' }),
    ]);
    expect(state.get('join')).toEqual([{ from: 'left' }, 'right']);
    expect(state.isReady('join')).toBe(true);
  });

  it('fires exactly once per round with consume', () => {
    const state = new ChannelState({ join: new Barrier(2) });
    state.update({ join: 1 });
    expect(state.consume('join')).toBe(false);
    expect(state.get('join')).toEqual([1]);
    state.update({ join: 2 }).update({ join: 3 });
    expect(state.consume('join')).toBe(true);
    expect(state.consume('join')).toBe(false);
    expect(state.get('join')).toEqual([]);
    state.update({ join: 4 });
    expect(state.isReady('join')).toBe(false);
    state.update({ join: 5 });
    expect(state.consume('join')).toBe(true);
  });

  it('stays consumed after a snapshot round trip', () => {
    const state = new ChannelState({ join: new Barrier(1) });
    state.update({ join: 'x' });
    state.consume('join');
    const restored = new ChannelState({ join: new Barrier(1) }).restore(state.snapshot());
    expect(restored.consume('join')).toBe(false);
  });

  it.each([0, -1, 1.5, Number.NaN])('refuses an expected count of %d', (expected) => {
    expect(() => new Barrier(expected)).toThrow(ChannelError);
  });
});
