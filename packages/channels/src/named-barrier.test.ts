import { describe, expect, it } from 'vitest';
import { ChannelError, InvalidUpdateError } from './channel-error.js';
import { ChannelState } from './channel-state.js';
import { ChannelUpdate } from './channel-update.js';
import { NamedBarrier } from './named-barrier.js';

describe('NamedBarrier', () => {
  it('is ready when every expected name has arrived', () => {
    const state = new ChannelState({ join: new NamedBarrier(['search', 'code']) });
    state.update({ join: { search: 'ref-1' } });
    expect(state.isReady('join')).toBe(false);
    state.update({ join: { code: 'ref-2' } });
    expect(state.isReady('join')).toBe(true);
    expect(state.get('join')).toEqual({ search: 'ref-1', code: 'ref-2' });
  });

  it('merges concurrent arrivals in update order; a repeated name keeps the later value', () => {
    const state = new ChannelState({ join: new NamedBarrier(['a', 'b']) });
    state.foldSuperstep(1, [
      ChannelUpdate.from({ join: { b: 1 } }),
      ChannelUpdate.from({ join: { a: 2, b: 3 } }),
    ]);
    expect(state.get('join')).toEqual({ b: 3, a: 2 });
    expect(Object.keys(state.get('join') ?? {})).toEqual(['b', 'a']);
  });

  it('rejects an unexpected name with a typed error, changing nothing', () => {
    const state = new ChannelState({ join: new NamedBarrier(['a', 'b']) });
    let caught: unknown;
    try {
      state.update({ join: { a: 1, c: 2 } });
    } catch (error) {
      caught = error;
    }
    expect(InvalidUpdateError.isInstance(caught)).toBe(true);
    expect((caught as Error).message).toContain('unexpected arrival "c"');
    expect((caught as Error).message).toContain('"a", "b"');
    expect(state.get('join')).toEqual({});
  });

  it('rejects a write that is not an object', () => {
    const state = new ChannelState({ join: new NamedBarrier(['a']) });
    expect(() => state.apply(ChannelUpdate.fromJSON({ writes: [['join', 'a']] }))).toThrow(
      InvalidUpdateError,
    );
  });

  it('fires exactly once with consume, then starts a new round', () => {
    const state = new ChannelState({ join: new NamedBarrier(['a', 'b']) });
    state.update({ join: { a: 1, b: 2 } });
    expect(state.consume('join')).toBe(true);
    expect(state.consume('join')).toBe(false);
    state.update({ join: { a: 3 } });
    expect(state.get('join')).toEqual({ a: 3 });
    expect(state.isReady('join')).toBe(false);
  });

  it('refuses a snapshot with an unexpected name', () => {
    const state = new ChannelState({ join: new NamedBarrier(['a']) });
    expect(() => state.restore({ format: 'wharf-channels', version: 1, values: { join: { z: 1 } } })).toThrow(
      /unexpected arrival "z"/,
    );
  });

  it.each([[[]], [['a', 'a']]])('refuses the name list %j', (names) => {
    expect(() => new NamedBarrier(names)).toThrow(ChannelError);
  });
});
