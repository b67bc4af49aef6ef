import { describe, expect, it } from 'vitest';
import { BinaryAggregate } from './binary-aggregate.js';
import { ChannelError, NotJsonError, UnknownChannelError } from './channel-error.js';
import { ChannelState } from './channel-state.js';
import { ChannelUpdate } from './channel-update.js';
import { Ephemeral } from './ephemeral.js';
import { LastValue } from './last-value.js';
import { Topic } from './topic.js';

const definitions = () => ({
  plan: new LastValue<string>(),
  log: new Topic<string>(),
  trigger: new Ephemeral<string>(),
});

function errorOf(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('ChannelState', () => {
  it('is its own reducer: the static apply folds and returns the state', () => {
    let state = new ChannelState(definitions());
    state = ChannelState.apply(state, ChannelUpdate.from({ plan: 'p', log: 'a' }));
    expect(state.get('plan')).toBe('p');
    expect(state.get('log')).toEqual(['a']);
  });

  it('refuses a write to an unknown channel, changing nothing', () => {
    const state = new ChannelState(definitions());
    const error = errorOf(() =>
      state.apply(
        ChannelUpdate.fromJSON({
          writes: [
            ['log', 'a'],
            ['plna', 'p'],
          ],
        }),
      ),
    );
    expect(UnknownChannelError.isInstance(error)).toBe(true);
    expect((error as UnknownChannelError).channel).toBe('plna');
    expect(state.get('log')).toEqual([]);
  });

  it('refuses a value that is not JSON, naming the channel and path, changing nothing', () => {
    const state = new ChannelState(definitions());
    const error = errorOf(() =>
      state.apply(
        ChannelUpdate.fromJSON({
          writes: [
            ['log', 'a'],
            ['plan', { at: new Date() }],
          ],
        }),
      ),
    );
    expect(NotJsonError.isInstance(error)).toBe(true);
    expect((error as NotJsonError).path).toBe('write to channel "plan".at');
    expect(state.get('log')).toEqual([]);
  });

  it('tracks the step and refuses a step that goes back', () => {
    const state = new ChannelState(definitions());
    expect(state.step).toBeUndefined();
    state.apply(ChannelUpdate.from({ log: 'a' }).atStep(5));
    expect(state.step).toBe(5);
    const error = errorOf(() => state.apply(ChannelUpdate.from({ log: 'b' }).atStep(4)));
    expect(ChannelError.isInstance(error) && error.code).toBe('STEP_OUT_OF_ORDER');
    expect(state.get('log')).toEqual(['a']);
    state.update({ log: 'unstamped' });
    expect(state.step).toBe(5);
  });

  it('a conflicting update leaves the state as it was, and the step can go on', () => {
    const state = new ChannelState(definitions());
    state.apply(ChannelUpdate.from({ plan: 'p1', trigger: 't' }).atStep(1));
    errorOf(() => state.apply(ChannelUpdate.from({ log: 'x', plan: 'p2' }).atStep(1)));
    expect(state.get('log')).toEqual([]);
    expect(state.get('plan')).toBe('p1');
    state.apply(ChannelUpdate.from({ log: 'y' }).atStep(1));
    expect(state.get('log')).toEqual(['y']);
    expect(state.get('trigger')).toBe('t');
  });

  it('a refused update that would start a new step neither advances nor clears', () => {
    const state = new ChannelState(definitions());
    state.apply(ChannelUpdate.from({ trigger: 't' }).atStep(1));
    errorOf(() => state.apply(ChannelUpdate.fromJSON({ writes: [['nope', 1]], step: 2 })));
    expect(state.step).toBe(1);
    expect(state.get('trigger')).toBe('t');
  });

  it('reports the channels written in the current step', () => {
    const state = new ChannelState(definitions());
    expect(state.changedInStep()).toEqual([]);
    state.apply(ChannelUpdate.from({ log: 'a' }).atStep(1));
    state.apply(ChannelUpdate.from({ plan: 'p' }).atStep(1));
    expect(state.changedInStep()).toEqual(['plan', 'log']);
    state.apply(ChannelUpdate.from({ trigger: 't' }).atStep(2));
    expect(state.changedInStep()).toEqual(['trigger']);
    state.advanceTo(3);
    expect(state.changedInStep()).toEqual([]);
    state.update({ log: 'b' });
    expect(state.changedInStep()).toEqual(['log']);
    state.update({ plan: 'q' });
    expect(state.changedInStep()).toEqual(['plan']);
  });

  it('takes updates through the typed update() shorthand with a step and a label', () => {
    const state = new ChannelState(definitions());
    state.update({ plan: 'p' }, { step: 1, label: 'planner' });
    expect(() => state.update({ plan: 'q' }, { step: 1, label: 'critic' })).toThrow(
      /first by "planner", then by "critic"/,
    );
  });

  it('snapshots with the step and restores into fresh bookkeeping', () => {
    const state = new ChannelState(definitions());
    state.apply(ChannelUpdate.from({ plan: 'p', trigger: 't' }).atStep(3));
    const snapshot = state.snapshot();
    expect(snapshot).toEqual({
      format: 'wharf-channels',
      version: 1,
      step: 3,
      values: { plan: 'p', log: [], trigger: 't' },
    });
    const restored = ChannelState.fromSnapshot(definitions(), JSON.parse(JSON.stringify(snapshot)));
    expect(restored.step).toBe(3);
    expect(restored.snapshot()).toEqual(snapshot);
    expect(restored.changedInStep()).toEqual([]);
    restored.apply(ChannelUpdate.from({ plan: 'after restore' }).atStep(3));
    expect(restored.get('plan')).toBe('after restore');
    restored.apply(ChannelUpdate.from({ log: 'x' }).atStep(4));
    expect(restored.get('trigger')).toBeUndefined();
  });

  it('does not let a fold write into the state it is folding into', () => {
    const holder: { state?: ChannelState } = {};
    const state = new ChannelState({
      total: new BinaryAggregate<number>((a, b) => {
        holder.state?.update({ total: 1 });
        return a + b;
      }),
    });
    holder.state = state as unknown as ChannelState;
    state.update({ total: 1 });
    expect(() => state.update({ total: 2 })).toThrow(/must not write to the state/);
    expect(state.get('total')).toBe(1);
  });

  it('accepts an existing ChannelSet', () => {
    const state = new ChannelState(definitions());
    const other = new ChannelState(state.channels);
    other.update({ plan: 'shared' });
    expect(state.get('plan')).toBe('shared');
    expect(other.names()).toEqual(['plan', 'log', 'trigger']);
    expect(other.has('log')).toBe(true);
  });
});
