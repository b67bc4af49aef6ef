import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Barrier } from './barrier.js';
import { BinaryAggregate } from './binary-aggregate.js';
import { SnapshotError } from './channel-error.js';
import { ChannelState } from './channel-state.js';
import { ChannelUpdate } from './channel-update.js';
import { Delta } from './delta.js';
import { Ephemeral } from './ephemeral.js';
import { LastValue } from './last-value.js';
import { Messages } from './messages.js';
import { NamedBarrier } from './named-barrier.js';
import { readSnapshotEnvelope } from './snapshot.js';
import { Topic } from './topic.js';
import { Untracked } from './untracked.js';

const definitions = () => ({
  plan: new LastValue(),
  log: new Topic(),
  items: new Topic({ arrays: 'item' }),
  max: new BinaryAggregate<number>((a, b) => Math.max(a, b)),
  tokens: new Delta(),
  chat: new Messages(),
  join: new Barrier(2),
  named: new NamedBarrier(['a', 'b']),
  trigger: new Ephemeral(),
  scratch: new Untracked(),
});
type Definitions = ReturnType<typeof definitions>;

const writes = fc.record(
  {
    plan: fc.jsonValue({ maxDepth: 3 }),
    log: fc.jsonValue({ maxDepth: 2 }),
    items: fc.jsonValue({ maxDepth: 2 }),
    max: fc.integer(),
    tokens: fc.integer({ min: -1e6, max: 1e6 }),
    chat: fc.array(
      fc.record({ id: fc.constantFrom('a', 'b', 'c', 'd'), body: fc.jsonValue({ maxDepth: 1 }) }),
      {
        maxLength: 3,
      },
    ),
    join: fc.jsonValue({ maxDepth: 1 }),
    named: fc.dictionary(fc.constantFrom('a', 'b'), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 }),
    trigger: fc.jsonValue({ maxDepth: 1 }),
    scratch: fc.jsonValue({ maxDepth: 1 }),
  },
  { requiredKeys: [] },
);
// One update per step, so overwrite channels never conflict; `stamped` picks stamped or not.
const history = fc.array(fc.record({ writes, stamped: fc.boolean(), consume: fc.boolean() }), {
  maxLength: 12,
});

type Entry = { writes: Record<string, unknown>; stamped: boolean; consume: boolean };

function play(state: ChannelState<Definitions>, steps: readonly Entry[]): ChannelState<Definitions> {
  let step = (state.step ?? 0) + 1;
  for (const entry of steps) {
    const update = ChannelUpdate.from(entry.writes);
    state.apply(entry.stamped ? update.atStep(step++) : update);
    if (entry.consume) state.consume('join');
  }
  return state;
}

describe('snapshots', () => {
  it('round-trip exactly through JSON for any history (property)', () => {
    fc.assert(
      fc.property(history, (steps) => {
        const state = play(new ChannelState(definitions()), steps);
        const snapshot = state.snapshot();
        const restored = ChannelState.fromSnapshot(definitions(), JSON.parse(JSON.stringify(snapshot)));
        expect(restored.snapshot()).toEqual(snapshot);
        expect(JSON.stringify(snapshot)).not.toContain('"scratch"');
      }),
      { numRuns: 200 },
    );
  });

  it('snapshotText equals the stringified snapshot, and restoreText reads it back (property)', () => {
    fc.assert(
      fc.property(history, (steps) => {
        const state = play(new ChannelState(definitions()), steps);
        const text = state.snapshotText();
        // The same value plus the index of the list written last.
        const { index, ...value } = JSON.parse(text);
        expect(value).toEqual(JSON.parse(JSON.stringify(state.snapshot())));
        for (const [name, recorded] of Object.entries(index ?? {})) {
          const list = value.values[name] as unknown[];
          expect(recorded).toEqual({ items: list.length, chars: JSON.stringify(list).length });
        }
        const restored = new ChannelState(definitions()).restoreText(text);
        expect(restored.snapshot()).toEqual(state.snapshot());
        expect(restored.step).toBe(state.step);
      }),
      { numRuns: 100 },
    );
  });

  it('JSON.stringify of a state or a set writes its snapshot', () => {
    const state = new ChannelState(definitions());
    state.update({ plan: 'p', log: ['a'] }, { step: 2 });
    expect(JSON.parse(JSON.stringify(state))).toEqual(state.snapshot());
    expect(JSON.parse(JSON.stringify(state.channels))).toEqual(state.channels.snapshot());
  });

  it('restoreText refuses text that is not JSON, changing nothing', () => {
    const state = new ChannelState(definitions());
    state.update({ plan: 'kept' });
    const error = (() => {
      try {
        state.restoreText('{"format": "wharf-channels", ');
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(SnapshotError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/not JSON/);
    expect(() =>
      state.restoreText(
        '{"format":"wharf-channels","version":1,"values":{"log":[1,{"a":null}],"tokens":"x"}}',
      ),
    ).toThrow(/"tokens"/);
    expect(state.get('plan')).toBe('kept');
    expect(state.get('log')).toEqual([]);
  });

  it('restoreText keeps appending after a restore, and hands out frozen items', () => {
    const state = new ChannelState(definitions());
    state.restoreText(
      '{"format":"wharf-channels","version":1,"step":4,"values":{"log":[{"a":1}],"join":["x"]}}',
    );
    state.update({ log: 'b', join: 'y' });
    expect(state.get('log')).toEqual([{ a: 1 }, 'b']);
    expect(Object.isFrozen(state.get('log')?.[0])).toBe(true);
    expect(state.isReady('join')).toBe(true);
    expect(state.step).toBe(4);
  });

  it('a restored state goes on exactly like the original (property)', () => {
    fc.assert(
      fc.property(history, history, (before, after) => {
        const original = play(new ChannelState(definitions()), before);
        const restored = ChannelState.fromSnapshot(
          definitions(),
          JSON.parse(JSON.stringify(original.snapshot())),
        );
        play(original, after);
        play(restored, after);
        expect(restored.snapshot()).toEqual(original.snapshot());
        for (const name of original.names()) {
          if (name !== 'scratch') expect(restored.isReady(name)).toBe(original.isReady(name));
        }
      }),
      { numRuns: 150 },
    );
  });

  it('are independent of the state: changing a snapshot never changes the state', () => {
    const state = new ChannelState(definitions());
    state.update({ plan: { deep: [1] }, log: ['a'], chat: { id: 'a' }, named: { a: 1 } });
    const before = JSON.stringify(state.snapshot());
    const snapshot = state.snapshot() as { values: Record<string, unknown> };
    (snapshot.values.log as unknown[]).push('x');
    (snapshot.values.chat as unknown[]).push({ id: 'z' });
    (snapshot.values.named as Record<string, unknown>).b = 2;
    expect(() => {
      ((snapshot.values.plan as { deep: number[] }).deep as number[]).push(2);
    }).toThrow(TypeError);
    expect(JSON.stringify(state.snapshot())).toBe(before);
  });

  it('carry a format and version that restore checks first', () => {
    const snapshot = new ChannelState(definitions()).snapshot();
    expect(snapshot.format).toBe('wharf-channels');
    expect(snapshot.version).toBe(1);
    expect(readSnapshotEnvelope(snapshot).values).toEqual(snapshot.values);
    const error = (() => {
      try {
        readSnapshotEnvelope({ ...snapshot, version: 0 });
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(SnapshotError.isInstance(error)).toBe(true);
    expect((error as SnapshotError).code).toBe('UNSUPPORTED_SNAPSHOT_VERSION');
    expect((error as Error).message).toMatch(/version 0 is not supported; this release reads version 1/);
  });
});
