import { Topic as TheirTopic } from '@langchain/langgraph/channels';
import { ChannelState, LastValue, Topic } from '@wharf/channels';
import { type BenchRow, formatRate, measure } from '../harness.js';
import { count } from './channel-level.js';
import { measurePair } from './pair.js';
import type { ChannelBenchSizes } from './sizes.js';

/** Length of the Topic that {@link readIsolationRows} appends to and reads after every append. */
function topicLength(smoke: boolean): number {
  return smoke ? 1_000 : 10_000;
}

/**
 * What it costs that our reads cannot change the state: a read after each append to a long
 * Topic (ours hands out a read-only view that keeps its length; LangGraph hands out its live
 * array, which callers can change). One operation is one append plus one read.
 *
 * @example
 * ```ts
 * const rows = await readIsolationRows(channelBenchSizes(true), true);
 * ```
 */
export async function readIsolationRows(sizes: ChannelBenchSizes, smoke: boolean): Promise<BenchRow[]> {
  const length = topicLength(smoke);
  const reads = smoke ? 1_000 : 10_000;
  const items = Array.from({ length }, (_, index) => `item ${index}`);
  const topic = await measurePair(reads, {
    rounds: sizes.rounds,
    ours: () => {
      const state = new ChannelState({ log: new Topic<string>() });
      state.update({ log: items });
      let read: readonly string[] | undefined;
      for (let index = 0; index < reads; index++) read = state.update({ log: 'x' }).get('log');
      if (read?.length !== length + reads) throw new Error('a read missed an append');
    },
    baseline: () => {
      const channel = new TheirTopic<string>({ accumulate: true });
      channel.update(items);
      let read: string[] | undefined;
      for (let index = 0; index < reads; index++) {
        channel.update(['x']);
        read = channel.get();
      }
      if (read?.length !== length + reads) throw new Error('a read missed an append');
    },
  });
  return [
    {
      name: `read isolation: append + get on a ${count(length)}+ item Topic (${count(reads)} times)`,
      ...topic,
      target: 0.5,
    },
  ];
}

/**
 * The read cost of an object in a LastValue (copied and frozen once, when written): printed
 * as a note, not a row.
 *
 * @example
 * ```ts
 * console.log(await readCostNotes(true));
 * ```
 */
export async function readCostNotes(smoke: boolean): Promise<string> {
  const reads = smoke ? 10_000 : 200_000;
  const state = new ChannelState({ plan: new LastValue<{ steps: string[] }>() });
  const plan = { steps: ['fetch', 'parse', 'summarise'] };
  const ourObject = await measure(reads, () => {
    for (let read = 0; read < reads; read++) state.update({ plan }).get('plan');
  });
  return [
    'Read isolation (notes, not targets):',
    `- write + get of an object in a LastValue: ours ${formatRate(ourObject.opsPerSecond)}/s ` +
      '(copied and frozen once on write, reads are free)',
  ].join('\n');
}
