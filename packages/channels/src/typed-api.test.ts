import { describe, expect, expectTypeOf, it } from 'vitest';
import type { ChannelValue, ChannelWrite } from './channel.js';
import { UnknownChannelError } from './channel-error.js';
import { ChannelSet } from './channel-set.js';
import { ChannelState } from './channel-state.js';
import { ChannelUpdate } from './channel-update.js';
import { Delta } from './delta.js';
import { LastValue } from './last-value.js';
import { Topic } from './topic.js';

// These tests are checked by the compiler (`tsc -b` builds the test files): every
// `@ts-expect-error` line must be an error, or the build fails.
const channels = () => ({ plan: new LastValue<string>(), log: new Topic<string>(), tokens: new Delta() });
type Channels = ReturnType<typeof channels>;

describe('typed API', () => {
  it('types reads by channel name', () => {
    const state = new ChannelState(channels());
    state.update({ plan: 'p', log: ['a'], tokens: 3 });
    const plan = state.get('plan');
    const log = state.get('log');
    expectTypeOf(plan).toEqualTypeOf<string | undefined>();
    expectTypeOf(log).toEqualTypeOf<readonly string[] | undefined>();
    expectTypeOf(state.get('tokens')).toEqualTypeOf<number | undefined>();
    expect(plan).toBe('p');
    expect(log).toEqual(['a']);
  });

  it('rejects unknown channel names and wrong value types at compile time', () => {
    const state = new ChannelState(channels());
    // @ts-expect-error "plna" is not a channel of this state.
    expect(() => state.update({ plna: 1 })).toThrow(UnknownChannelError);
    // @ts-expect-error a LastValue<string> takes strings.
    state.update({ plan: 42 });
    // @ts-expect-error reading an unknown channel.
    expect(() => state.get('plna')).toThrow(UnknownChannelError);
    // @ts-expect-error the typed factory checks names too.
    const update = ChannelUpdate.from<Channels>({ plna: 1 });
    expect(() => state.apply(update)).toThrow(UnknownChannelError);
    const list = ChannelUpdate.fromList<Channels>([
      ['log', 'a'],
      // @ts-expect-error list writes are checked per channel.
      ['tokens', 'not a number'],
    ]);
    expect(list.writes).toHaveLength(2);
    expect(state.get('plan')).toBe(42);
  });

  it('narrows names with has()', () => {
    const set = new ChannelSet(channels());
    const name: string = 'log';
    if (set.has(name)) {
      expectTypeOf(name).toEqualTypeOf<'plan' | 'log' | 'tokens'>();
      expect(set.get(name)).toEqual([]);
    } else {
      expect.unreachable();
    }
  });

  it('derives value and write types from a channel', () => {
    expectTypeOf<ChannelValue<Topic<string>>>().toEqualTypeOf<readonly string[]>();
    expectTypeOf<ChannelWrite<Topic<string>>>().toEqualTypeOf<string | readonly string[]>();
    expectTypeOf<ChannelWrite<Delta>>().toEqualTypeOf<number>();
    expect(new ChannelState(channels()).names()).toEqual(['plan', 'log', 'tokens']);
  });
});
