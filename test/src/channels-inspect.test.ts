import { format, inspect } from 'node:util';
import { ChannelState, ChannelUpdate, foldSuperstep, LastValue, Topic } from '@wharf/channels';
import { describe, expect, it } from 'vitest';

// What a person sees who console.logs channel values: Node's formatter on @wharf/channels' public API.
describe('console.log of a Topic value', () => {
  it('prints its items, like an array, also nested and at any length', () => {
    const state = new ChannelState({ plan: new LastValue<string>(), log: new Topic<string>() });
    foldSuperstep(state, 1, [
      ChannelUpdate.from({ plan: 'search', log: 'planned' }, { label: 'planner' }),
      ChannelUpdate.from({ log: 'searched' }, { label: 'search' }),
    ]);
    const log = state.get('log');
    expect(inspect(log)).toBe("[ 'planned', 'searched' ]");
    // console.log formats its arguments with util.format.
    expect(format(log)).toBe("[ 'planned', 'searched' ]");
    expect(inspect({ log })).toBe("{ log: [ 'planned', 'searched' ] }");

    foldSuperstep(state, 2, [
      ChannelUpdate.from(
        { log: Array.from({ length: 150 }, (_, index) => `entry ${index}`) },
        { label: 'bulk' },
      ),
    ]);
    const long = inspect(state.get('log'));
    expect(long).toContain("'entry 97'");
    expect(long).toContain('... 52 more items');
  });
});
