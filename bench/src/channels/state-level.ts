import {
  type BaseChannel,
  BinaryOperatorAggregate as TheirBinaryAggregate,
  LastValue as TheirLastValue,
  Topic as TheirTopic,
} from '@langchain/langgraph/channels';
import { BinaryAggregate, ChannelState, ChannelUpdate, LastValue, Topic } from '@wharf/channels';
import type { BenchRow } from '../harness.js';
import { count } from './channel-level.js';
import { measurePair } from './pair.js';
import type { ChannelBenchSizes } from './sizes.js';

type Write = readonly [string, unknown];

const add = (current: number, incoming: number) => current + incoming;

/** Six channels; `notes` and `errors` are never written (LangGraph still updates them with []). */
function ourChannels() {
  return {
    plan: new LastValue<string>(),
    status: new LastValue<string>(),
    log: new Topic<string>(),
    total: new BinaryAggregate<number>(add),
    notes: new Topic<string>(),
    errors: new Topic<string>(),
  };
}

function theirChannels(): Record<string, BaseChannel> {
  return {
    plan: new TheirLastValue<string>(),
    status: new TheirLastValue<string>(),
    log: new TheirTopic<string>({ accumulate: true }),
    total: new TheirBinaryAggregate<number>(add),
    notes: new TheirTopic<string>({ accumulate: true }),
    errors: new TheirTopic<string>({ accumulate: true }),
  };
}

/**
 * Every step's branch results: each branch appends to `log` and adds to `total`; branch 0
 * also sets `plan` and `status` (overwrite channels take one writer per step).
 */
function workload(sizes: ChannelBenchSizes): Write[][][] {
  const steps: Write[][][] = [];
  for (let step = 1; step <= sizes.stateSteps; step++) {
    const branches: Write[][] = [];
    for (let branch = 0; branch < sizes.stateBranches; branch++) {
      const writes: Write[] = [
        ['log', `step ${step} branch ${branch}`],
        ['total', branch + 1],
      ];
      if (branch === 0) writes.push(['plan', `plan ${step}`], ['status', 'running']);
      branches.push(writes);
    }
    steps.push(branches);
  }
  return steps;
}

/**
 * State level: a `ChannelState` folding stamped `ChannelUpdate`s (one `apply` per branch
 * result, and `foldSuperstep` per step) against LangGraph's superstep shape: the same
 * writes grouped per channel each step and applied with `update`, empty batches included.
 *
 * @example
 * ```ts
 * const rows = await stateLevelRows(channelBenchSizes(true));
 * ```
 */
export async function stateLevelRows(sizes: ChannelBenchSizes): Promise<BenchRow[]> {
  const steps = workload(sizes);
  const writes = steps.reduce(
    (sum, branches) => sum + branches.reduce((inner, list) => inner + list.length, 0),
    0,
  );
  const stamped = steps.map((branches, index) =>
    branches.map((list) => ChannelUpdate.fromList(list, { step: index + 1 })),
  );
  const unstamped = steps.map((branches) => branches.map((list) => ChannelUpdate.fromList(list)));

  const theirs = () => {
    const channels = theirChannels();
    const names = Object.keys(channels);
    for (const branches of steps) {
      const grouped: Record<string, unknown[]> = {};
      for (const name of names) grouped[name] = [];
      for (const list of branches) for (const [name, value] of list) grouped[name]?.push(value);
      for (const name of names) channels[name]?.update(grouped[name] ?? []);
    }
    return channels;
  };
  const apply = await measurePair(writes, {
    rounds: sizes.rounds,
    ours: () => {
      const state = new ChannelState(ourChannels());
      for (const updates of stamped) for (const update of updates) state.apply(update);
      return state;
    },
    baseline: theirs,
  });
  const fold = await measurePair(writes, {
    rounds: sizes.rounds,
    ours: () => {
      const state = new ChannelState(ourChannels());
      for (let index = 0; index < unstamped.length; index++) {
        state.foldSuperstep(index + 1, unstamped[index] as ChannelUpdate[]);
      }
      return state;
    },
    baseline: theirs,
  });
  const label = `${count(sizes.stateSteps)} steps x ${sizes.stateBranches} branches, ${count(writes)} writes`;
  return [
    { name: `ChannelState.apply (stamped): ${label}`, ...apply, target: 1 },
    { name: `foldSuperstep: ${label}`, ...fold, target: 1 },
  ];
}
