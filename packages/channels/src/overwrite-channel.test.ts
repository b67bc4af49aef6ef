import { describe, expect, it } from 'vitest';
import { InvalidConcurrentUpdateError } from './channel-error.js';
import { ChannelState } from './channel-state.js';
import { ChannelUpdate } from './channel-update.js';
import { Ephemeral } from './ephemeral.js';
import { LastValue } from './last-value.js';
import { Untracked } from './untracked.js';

const overwriteChannels = [
  ['LastValue', () => new LastValue<string>()],
  ['Ephemeral', () => new Ephemeral<string>()],
  ['Untracked', () => new Untracked<string>()],
] as const;

describe.each(overwriteChannels)('%s (overwrite channel)', (kind, create) => {
  it('does not allow concurrent writes', () => {
    expect(create().allowsConcurrent).toBe(false);
    expect(create().kind).toBe(kind);
  });

  it('throws on a second write in the same stamped step, naming channel, step and both writers', () => {
    const state = new ChannelState({ slot: create() });
    state.apply(ChannelUpdate.from({ slot: 'a' }, { step: 4, label: 'planner' }));
    let caught: unknown;
    try {
      state.apply(ChannelUpdate.from({ slot: 'b' }, { step: 4, label: 'critic' }));
    } catch (error) {
      caught = error;
    }
    expect(InvalidConcurrentUpdateError.isInstance(caught)).toBe(true);
    const error = caught as InvalidConcurrentUpdateError;
    expect(error.channel).toBe('slot');
    expect(error.step).toBe(4);
    expect(error.writers).toEqual(['"planner"', '"critic"']);
    expect(error.message).toContain(kind);
    expect(error.message).toMatch(/"slot".*step 4.*"planner".*"critic"/);
    expect(state.get('slot')).toBe('a');
  });

  it('names unlabelled writers by their position in the step', () => {
    const state = new ChannelState({ slot: create(), other: new LastValue<number>() });
    state.apply(ChannelUpdate.from({ other: 1 }).atStep(2));
    state.apply(ChannelUpdate.from({ slot: 'a' }).atStep(2));
    expect(() => state.apply(ChannelUpdate.from({ slot: 'b' }).atStep(2))).toThrow(
      /first by update #2, then by update #3/,
    );
  });

  it('throws on two writes to it within one stamped update', () => {
    const state = new ChannelState({ slot: create() });
    const update = ChannelUpdate.fromList<{ slot: LastValue<string> }>([
      ['slot', 'a'],
      ['slot', 'b'],
    ]);
    expect(() => state.apply(update.atStep(1))).toThrow(InvalidConcurrentUpdateError);
    expect(state.get('slot')).toBeUndefined();
  });

  it('accepts the second write in the next step', () => {
    const state = new ChannelState({ slot: create() });
    state.apply(ChannelUpdate.from({ slot: 'a' }).atStep(1));
    state.apply(ChannelUpdate.from({ slot: 'b' }).atStep(2));
    expect(state.get('slot')).toBe('b');
  });

  it('lets the last write win across unstamped updates, even within one update', () => {
    const state = new ChannelState({ slot: create() });
    state.update({ slot: 'a' }).update({ slot: 'b' });
    state.apply(
      ChannelUpdate.fromList<{ slot: LastValue<string> }>([
        ['slot', 'c'],
        ['slot', 'd'],
      ]),
    );
    expect(state.get('slot')).toBe('d');
  });
});
