import type { JsonValue } from '@wharf/common';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Barrier } from './barrier.js';
import { BinaryAggregate } from './binary-aggregate.js';
import { ChannelError, InvalidConcurrentUpdateError } from './channel-error.js';
import { ChannelState } from './channel-state.js';
import { ChannelUpdate } from './channel-update.js';
import { Delta } from './delta.js';
import { Ephemeral } from './ephemeral.js';
import { foldSuperstep } from './fold-superstep.js';
import { LastValue } from './last-value.js';
import { Messages } from './messages.js';
import { NamedBarrier } from './named-barrier.js';
import { Topic } from './topic.js';

const definitions = () => ({
  plan: new LastValue<string>(),
  log: new Topic<string>(),
  text: new BinaryAggregate<string>((a, b) => a + b),
  tokens: new Delta(),
  chat: new Messages(),
  join: new Barrier(3),
  named: new NamedBarrier(['a', 'b', 'c']),
  trigger: new Ephemeral<number>(),
});
type Definitions = ReturnType<typeof definitions>;

function withoutOverwrites<TWrites extends { plan?: unknown; trigger?: unknown }>(
  writes: TWrites,
): Omit<TWrites, 'plan' | 'trigger'> {
  const { plan: _plan, trigger: _trigger, ...rest } = writes;
  return rest;
}

describe('foldSuperstep', () => {
  it('folds branches in array order, not in the order they finished', async () => {
    const finished: number[] = [];
    const resolvers: ((update: ChannelUpdate<Definitions>) => void)[] = [];
    const running = [0, 1, 2].map(
      (index) =>
        new Promise<ChannelUpdate<Definitions>>((resolve) => {
          resolvers[index] = (update) => {
            finished.push(index);
            resolve(update);
          };
        }),
    );
    for (const index of [1, 2, 0]) {
      resolvers[index]?.(
        ChannelUpdate.from<Definitions>({ log: `branch ${index}`, text: String(index), join: index }),
      );
      await Promise.resolve();
    }
    const branches = await Promise.all(running);
    expect(finished).toEqual([1, 2, 0]);
    const state = foldSuperstep(new ChannelState(definitions()), 1, branches);
    expect(state.get('log')).toEqual(['branch 0', 'branch 1', 'branch 2']);
    expect(state.get('text')).toBe('012');
    expect(state.get('join')).toEqual([0, 1, 2]);
    expect(state.isReady('join')).toBe(true);
  });

  it('names unlabelled branches by index in conflicts, and changes nothing', () => {
    const state = new ChannelState(definitions());
    const error = (() => {
      try {
        state.foldSuperstep(2, [
          ChannelUpdate.from({ log: 'a' }),
          ChannelUpdate.from({ plan: 'x' }),
          ChannelUpdate.from({ plan: 'y' }),
        ]);
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(InvalidConcurrentUpdateError.isInstance(error)).toBe(true);
    expect((error as InvalidConcurrentUpdateError).writers).toEqual(['branch 1', 'branch 2']);
    expect((error as Error).message).toContain('step 2');
    expect(state.get('log')).toEqual([]);
    expect(state.step).toBeUndefined();
  });

  it('prefers branch labels in errors', () => {
    const state = new ChannelState(definitions());
    expect(() =>
      state.foldSuperstep(1, [
        ChannelUpdate.from({ plan: 'x' }, { label: 'search' }),
        ChannelUpdate.from({ plan: 'y' }, { label: 'code' }),
      ]),
    ).toThrow(/first by "search", then by "code"/);
  });

  it('refuses a branch stamped with another step', () => {
    const state = new ChannelState(definitions());
    const error = (() => {
      try {
        state.foldSuperstep(2, [ChannelUpdate.from({ log: 'a' }).atStep(1)]);
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(ChannelError.isInstance(error) && error.code).toBe('STEP_OUT_OF_ORDER');
  });

  it('is deterministic: folding the same steps twice gives deep-equal state', () => {
    const branch = fc.record(
      {
        plan: fc.string({ maxLength: 4 }),
        log: fc.oneof(fc.string({ maxLength: 3 }), fc.array(fc.string({ maxLength: 3 }), { maxLength: 3 })),
        text: fc.string({ maxLength: 3 }),
        tokens: fc.integer({ min: -1000, max: 1000 }),
        chat: fc.record({ id: fc.constantFrom('m1', 'm2', 'm3'), text: fc.string({ maxLength: 3 }) }),
        join: fc.jsonValue({ maxDepth: 2 }).map((value) => value as JsonValue),
        named: fc.dictionary(fc.constantFrom('a', 'b', 'c'), fc.integer(), { maxKeys: 2 }),
        trigger: fc.integer(),
      },
      { requiredKeys: [] },
    );
    const steps = fc.array(fc.array(branch, { maxLength: 4 }), { minLength: 1, maxLength: 6 });
    fc.assert(
      fc.property(steps, (plan) => {
        const run = () => {
          const state = new ChannelState(definitions());
          plan.forEach((branches, index) => {
            // Overwrite channels keep one writer per step: drop their writes after the first branch.
            const updates = branches.map((writes, position) =>
              ChannelUpdate.from<Definitions>(position === 0 ? writes : withoutOverwrites(writes)),
            );
            state.foldSuperstep(index + 1, updates);
            if (index % 2 === 1) state.consume('join');
          });
          return { snapshot: state.snapshot(), changed: state.changedInStep() };
        };
        expect(run()).toEqual(run());
      }),
      { numRuns: 150 },
    );
  });

  it('is all or nothing: a bad write in any branch leaves the state exactly as it was (property)', () => {
    const good = fc.record(
      {
        log: fc.string({ maxLength: 3 }),
        text: fc.string({ maxLength: 3 }),
        tokens: fc.integer({ max: 100 }),
      },
      { requiredKeys: [] },
    );
    const bad = fc.constantFrom<[string, unknown]>(
      ['nope', 1],
      ['tokens', 'NaN'],
      ['chat', { text: 'no id' }],
      ['named', { z: 1 }],
      ['log', { at: new Date(0) }],
    );
    fc.assert(
      fc.property(fc.array(good, { maxLength: 4 }), fc.nat(), bad, (branches, where, write) => {
        const state = new ChannelState(definitions());
        state.foldSuperstep(1, [ChannelUpdate.from<Definitions>({ log: 'before', trigger: 1, tokens: 5 })]);
        const before = state.snapshot();
        const updates = branches.map((writes) => ChannelUpdate.from<Definitions>(writes));
        updates.splice(where % (updates.length + 1), 0, ChannelUpdate.fromJSON({ writes: [write] }));
        expect(() => state.foldSuperstep(2, updates)).toThrow(ChannelError);
        expect(state.snapshot()).toEqual(before);
        expect(state.changedInStep()).toEqual(['log', 'tokens', 'trigger']);
      }),
      { numRuns: 100 },
    );
  });

  it('matches applying the same updates one by one at that step', () => {
    const updates = [
      ChannelUpdate.from<Definitions>({ log: 'a', tokens: 2 }),
      ChannelUpdate.from<Definitions>({ log: ['b', 'c'], chat: { id: 'x' }, plan: 'p' }),
    ];
    const folded = new ChannelState(definitions()).foldSuperstep(7, updates);
    const applied = new ChannelState(definitions());
    for (const update of updates) applied.apply(update.atStep(7));
    expect(folded.snapshot()).toEqual(applied.snapshot());
  });
});
