import { describe, expect, it } from 'vitest';
import { ChannelState } from './channel-state.js';
import { ChannelUpdate } from './channel-update.js';
import { Ephemeral } from './ephemeral.js';
import { LastValue } from './last-value.js';

describe('Ephemeral', () => {
  it('is cleared exactly when a stamped update moves to a later step', () => {
    const state = new ChannelState({ trigger: new Ephemeral<string>(), log: new LastValue<number>() });
    state.apply(ChannelUpdate.from({ trigger: 'go' }).atStep(1));
    state.apply(ChannelUpdate.from({ log: 1 }).atStep(1));
    expect(state.get('trigger')).toBe('go');
    expect(state.snapshot().values.trigger).toBe('go');
    state.apply(ChannelUpdate.from({ log: 2 }).atStep(2));
    expect(state.get('trigger')).toBeUndefined();
    expect(state.snapshot().values).not.toHaveProperty('trigger');
  });

  it('is set again when the next step writes it', () => {
    const state = new ChannelState({ trigger: new Ephemeral<string>() });
    state.apply(ChannelUpdate.from({ trigger: 'one' }).atStep(1));
    state.apply(ChannelUpdate.from({ trigger: 'two' }).atStep(2));
    expect(state.get('trigger')).toBe('two');
  });

  it('is cleared by advanceTo and by an empty superstep, but not by a repeated step', () => {
    const state = new ChannelState({ trigger: new Ephemeral<string>() });
    state.apply(ChannelUpdate.from({ trigger: 'go' }).atStep(1));
    state.advanceTo(1);
    expect(state.get('trigger')).toBe('go');
    state.advanceTo(2);
    expect(state.get('trigger')).toBeUndefined();
    state.apply(ChannelUpdate.from({ trigger: 'again' }).atStep(3));
    state.foldSuperstep(4, []);
    expect(state.get('trigger')).toBeUndefined();
  });

  it('is never cleared by unstamped updates', () => {
    const state = new ChannelState({ trigger: new Ephemeral<string>(), other: new LastValue<number>() });
    state.update({ trigger: 'go' }).update({ other: 1 }).update({ other: 2 });
    expect(state.get('trigger')).toBe('go');
  });
});
