import { describe, expect, it } from 'vitest';
import { ChannelState } from './channel-state.js';
import { LastValue } from './last-value.js';
import { Untracked } from './untracked.js';

describe('Untracked', () => {
  it('is never part of a snapshot, and a restore empties it', () => {
    const state = new ChannelState({ scratch: new Untracked<number>(), plan: new LastValue<string>() });
    state.update({ scratch: 42, plan: 'p' });
    const snapshot = state.snapshot();
    expect(snapshot.values).toEqual({ plan: 'p' });
    expect(JSON.stringify(snapshot)).not.toContain('42');
    expect(state.get('scratch')).toBe(42);
    state.restore(snapshot);
    expect(state.get('scratch')).toBeUndefined();
    expect(state.get('plan')).toBe('p');
  });

  it('refuses a snapshot that carries it', () => {
    const state = new ChannelState({ scratch: new Untracked<number>() });
    expect(() => state.restore({ format: 'wharf-channels', version: 1, values: { scratch: 1 } })).toThrow(
      /never checkpointed/,
    );
  });
});
