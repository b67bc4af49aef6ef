import { describe, expect, it } from 'vitest';
import type { Channel } from './channel.js';
import { InvalidUpdateError } from './channel-error.js';
import { ChannelState } from './channel-state.js';
import { ChannelUpdate } from './channel-update.js';
import { sealJson } from './json-value.js';
import { Messages } from './messages.js';
import { Topic } from './topic.js';

/** A custom aggregate channel: keeps the largest number written so far. */
const max: Channel<number, number> = {
  kind: 'Max',
  allowsConcurrent: true,
  checkpointed: true,
  clearsOnStep: false,
  empty: () => undefined,
  accept: (incoming, name) => {
    if (typeof incoming !== 'number') throw new InvalidUpdateError(name, 'expected a number');
    return incoming;
  },
  merge: (current, incoming) => (current === undefined ? incoming : Math.max(current, incoming)),
  isReady: (value) => value !== undefined,
  view: (value) => value,
  toSnapshot: (value) => value,
  fromSnapshot: (value, name) => max.accept?.(sealJson(value, name), name) ?? 0,
};

/** A custom overwrite channel without `accept`: takes any JSON as it is. */
const latest: Channel<unknown, unknown> = {
  kind: 'Latest',
  allowsConcurrent: false,
  checkpointed: true,
  clearsOnStep: false,
  empty: () => undefined,
  merge: (_current, incoming) => incoming,
  isReady: (value) => value !== undefined,
  view: (value) => value,
  toSnapshot: (value) => sealJson(value, 'latest'),
  fromSnapshot: (value, name) => sealJson(value, name),
};

describe('custom channels', () => {
  it('fold through the same state rules as the built-ins', () => {
    const state = new ChannelState({ best: max, last: latest });
    state.foldSuperstep(1, [ChannelUpdate.from({ best: 3, last: 'a' }), ChannelUpdate.from({ best: 9 })]);
    expect(state.get('best')).toBe(9);
    expect(() =>
      state.foldSuperstep(2, [ChannelUpdate.from({ last: 'b' }), ChannelUpdate.from({ last: 'c' })]),
    ).toThrow(/"last" \(Latest\) was written twice in step 2/);
    expect(() => state.apply(ChannelUpdate.fromJSON({ writes: [['best', 'high']] }))).toThrow(
      InvalidUpdateError,
    );
    const restored = new ChannelState({ best: max, last: latest }).restore(
      JSON.parse(JSON.stringify(state.snapshot())),
    );
    expect(restored.snapshot()).toEqual(state.snapshot());
  });

  it('still get every write checked for plain JSON', () => {
    const state = new ChannelState({ last: latest });
    expect(() => state.update({ last: { at: new Date(0) } })).toThrow(/write to channel "last"\.at/);
  });
});

describe('writes are copied on the way in', () => {
  it('changing a written array or object afterwards does not change the state', () => {
    const state = new ChannelState({ log: new Topic<{ n: number }>(), chat: new Messages() });
    const batch = [{ n: 1 }, { n: 2 }];
    const messages = [{ id: 'a', text: 'hi' }];
    state.update({ log: batch, chat: messages });
    batch.push({ n: 3 });
    (batch[0] as { n: number }).n = 99;
    (messages[0] as { text: string }).text = 'changed';
    expect(state.get('log')).toEqual([{ n: 1 }, { n: 2 }]);
    expect(state.get('chat')).toEqual([{ id: 'a', text: 'hi' }]);
  });
});
