import { describe, expect, it } from 'vitest';
import { Barrier } from './barrier.js';
import { SnapshotError, UnknownChannelError } from './channel-error.js';
import { ChannelSet } from './channel-set.js';
import { ChannelState } from './channel-state.js';
import { Ephemeral } from './ephemeral.js';
import { LastValue } from './last-value.js';
import { Topic } from './topic.js';
import { Untracked } from './untracked.js';

const definitions = () => ({
  plan: new LastValue<string>(),
  log: new Topic<string>(),
  join: new Barrier(2),
  scratch: new Untracked<number>(),
});

describe('ChannelSet', () => {
  it('lists, finds and reads its channels', () => {
    const set = new ChannelSet(definitions());
    expect(set.names()).toEqual(['plan', 'log', 'join', 'scratch']);
    expect(set.has('plan')).toBe(true);
    expect(set.has('plna')).toBe(false);
    expect(set.channel('join').expected).toBe(2);
    expect(set.get('plan')).toBeUndefined();
    expect(set.get('log')).toEqual([]);
    expect(set.isReady('plan')).toBe(false);
  });

  it('throws UnknownChannelError naming the known channels when read by a wrong name', () => {
    const set = new ChannelSet(definitions()) as unknown as ChannelSet;
    let caught: unknown;
    try {
      set.get('plna');
    } catch (error) {
      caught = error;
    }
    expect(UnknownChannelError.isInstance(caught)).toBe(true);
    expect((caught as UnknownChannelError).channel).toBe('plna');
    expect((caught as Error).message).toContain('"plan", "log", "join", "scratch"');
  });

  it('snapshots only checkpointed channels that hold a value, with a format version', () => {
    const state = new ChannelState(definitions());
    state.update({ plan: 'p', scratch: 1 });
    expect(state.channels.snapshot()).toEqual({
      format: 'wharf-channels',
      version: 1,
      values: { plan: 'p', log: [], join: [] },
    });
  });

  it('restores a snapshot exactly, and empties channels it omits', () => {
    const state = new ChannelState(definitions());
    state.update({ plan: 'p', log: ['a', 'b'], join: 'x' });
    const snapshot = state.channels.snapshot();
    const other = new ChannelSet(definitions());
    other.restore(JSON.parse(JSON.stringify(snapshot)));
    expect(other.snapshot()).toEqual(snapshot);
    other.restore({ format: 'wharf-channels', version: 1, values: { log: ['z'] } });
    expect(other.get('plan')).toBeUndefined();
    expect(other.get('log')).toEqual(['z']);
    expect(other.get('join')).toEqual([]);
  });

  it.each([
    ['not an object', 'x', 'INVALID_SNAPSHOT', /must be an object/],
    ['another format', { format: 'other', version: 1, values: {} }, 'INVALID_SNAPSHOT', /format/],
    [
      'an older version',
      { format: 'wharf-channels', version: 0, values: {} },
      'UNSUPPORTED_SNAPSHOT_VERSION',
      /0/,
    ],
    [
      'a newer version',
      { format: 'wharf-channels', version: 2, values: {} },
      'UNSUPPORTED_SNAPSHOT_VERSION',
      /2/,
    ],
    ['no values', { format: 'wharf-channels', version: 1 }, 'INVALID_SNAPSHOT', /values/],
    [
      'a bad step',
      { format: 'wharf-channels', version: 1, step: -1, values: {} },
      'INVALID_SNAPSHOT',
      /step/,
    ],
    [
      'a value that is not JSON',
      { format: 'wharf-channels', version: 1, values: { plan: Number.NaN } },
      'INVALID_SNAPSHOT',
      /"plan".*NaN/,
    ],
  ])('refuses %s with a clear error and keeps its values', (_, snapshot, code, message) => {
    const set = new ChannelSet(definitions());
    new ChannelState(set).update({ plan: 'kept' });
    let caught: unknown;
    try {
      set.restore(snapshot);
    } catch (error) {
      caught = error;
    }
    expect(SnapshotError.isInstance(caught)).toBe(true);
    expect((caught as SnapshotError).code).toBe(code);
    expect((caught as Error).message).toMatch(message);
    expect(set.get('plan')).toBe('kept');
  });

  it('refuses a snapshot naming an unknown channel, changing nothing', () => {
    const set = new ChannelSet(definitions());
    new ChannelState(set).update({ plan: 'kept' });
    expect(() =>
      set.restore({ format: 'wharf-channels', version: 1, values: { plan: 'new', gone: 1 } }),
    ).toThrow(UnknownChannelError);
    expect(set.get('plan')).toBe('kept');
  });

  it('does not keep a reference to the restored snapshot', () => {
    const set = new ChannelSet({ log: new Topic<{ n: number }>() });
    const snapshot = { format: 'wharf-channels', version: 1, values: { log: [{ n: 1 }] } };
    set.restore(snapshot);
    snapshot.values.log.push({ n: 2 });
    (snapshot.values.log[0] as { n: number }).n = 9;
    expect(set.get('log')).toEqual([{ n: 1 }]);
  });

  it('resets a channel to empty or to its initial value', () => {
    const set = new ChannelSet({ plan: new LastValue<string>('start'), trigger: new Ephemeral<string>() });
    new ChannelState(set).update({ plan: 'changed', trigger: 't' });
    set.reset('plan');
    set.reset('trigger');
    expect(set.get('plan')).toBe('start');
    expect(set.get('trigger')).toBeUndefined();
  });

  it('refuses an entry that is not a channel', () => {
    expect(() => new ChannelSet({ plan: { kind: 'fake' } } as never)).toThrow(/"plan" is not a channel/);
  });
});
