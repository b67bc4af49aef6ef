import { describe, expect, it } from 'vitest';
import { InvalidUpdateError } from './channel-error.js';
import { ChannelState } from './channel-state.js';
import { ChannelUpdate } from './channel-update.js';
import { Messages } from './messages.js';

describe('Messages', () => {
  it('appends new ids and replaces known ids in place', () => {
    const state = new ChannelState({ chat: new Messages() });
    state.update({
      chat: [
        { id: 'a', text: 'draft' },
        { id: 'b', text: 'hi' },
      ],
    });
    state.update({ chat: { id: 'a', text: 'final' } });
    state.update({ chat: [{ id: 'c', text: 'new' }] });
    expect(state.get('chat')).toEqual([
      { id: 'a', text: 'final' },
      { id: 'b', text: 'hi' },
      { id: 'c', text: 'new' },
    ]);
  });

  it('merges concurrent same-step writes in update order', () => {
    const state = new ChannelState({ chat: new Messages() });
    state.update({ chat: { id: 'a', text: 'start' } });
    state.foldSuperstep(1, [
      ChannelUpdate.from({ chat: [{ id: 'x', by: 'branch 0' }] }),
      ChannelUpdate.from({
        chat: [
          { id: 'a', by: 'branch 1' },
          { id: 'x', by: 'branch 1' },
        ],
      }),
      ChannelUpdate.from({ chat: { id: 'y', by: 'branch 2' } }),
    ]);
    expect(state.get('chat')).toEqual([
      { id: 'a', by: 'branch 1' },
      { id: 'x', by: 'branch 1' },
      { id: 'y', by: 'branch 2' },
    ]);
  });

  it.each([
    [{ text: 'no id' }, /message needs a non-empty string "id" \(it has none\)/],
    [[{ id: 'a' }, { id: 7 }], /message\[1\] needs a non-empty string "id" \(found 7\)/],
    [{ id: '' }, /non-empty/],
    ['plain text', /must be an object/],
  ])('rejects %o with a typed error', (chat, message) => {
    const state = new ChannelState({ chat: new Messages() });
    let caught: unknown;
    try {
      state.apply(ChannelUpdate.fromJSON({ writes: [['chat', chat]] }));
    } catch (error) {
      caught = error;
    }
    expect(InvalidUpdateError.isInstance(caught)).toBe(true);
    expect((caught as Error).message).toMatch(message);
    expect(state.get('chat')).toEqual([]);
  });

  it('keeps deduplicating by id after a snapshot round trip', () => {
    const state = new ChannelState({ chat: new Messages() });
    state.update({
      chat: [
        { id: 'a', n: 1 },
        { id: 'b', n: 1 },
      ],
    });
    const restored = new ChannelState({ chat: new Messages() }).restore(
      JSON.parse(JSON.stringify(state.snapshot())),
    );
    restored.update({ chat: { id: 'b', n: 2 } });
    expect(restored.get('chat')).toEqual([
      { id: 'a', n: 1 },
      { id: 'b', n: 2 },
    ]);
    expect(state.get('chat')).toEqual([
      { id: 'a', n: 1 },
      { id: 'b', n: 1 },
    ]);
  });
});
