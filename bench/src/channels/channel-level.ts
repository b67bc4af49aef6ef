import {
  BinaryOperatorAggregate as TheirBinaryAggregate,
  LastValue as TheirLastValue,
  Topic as TheirTopic,
} from '@langchain/langgraph/channels';
import { BinaryAggregate, LastValue, sealJson, sealJsonList, Topic } from '@wharf/channels';
import type { BenchRow } from '../harness.js';
import { measurePair } from './pair.js';
import type { ChannelBenchSizes } from './sizes.js';

const add = (current: number, incoming: number) => current + incoming;

/**
 * Channel level: one channel folding writes, ours (the JSON check + `merge`, exactly what a
 * `ChannelState` runs per write; a spread Topic batch is checked with `sealJsonList`)
 * against LangGraph's `update([...])`.
 *
 * @example
 * ```ts
 * const rows = await channelLevelRows(channelBenchSizes(true));
 * ```
 */
export async function channelLevelRows(sizes: ChannelBenchSizes): Promise<BenchRow[]> {
  const { rounds } = sizes;
  const writes = sizes.lastValueWrites;
  const lastValue = await measurePair(writes, {
    rounds,
    ours: () => {
      const channel = new LastValue<number>();
      let value: number | undefined;
      for (let index = 0; index < writes; index++)
        value = channel.merge(value, sealJson(index, 'v') as number);
      return value;
    },
    baseline: () => {
      const channel = new TheirLastValue<number>();
      for (let index = 0; index < writes; index++) channel.update([index]);
      return channel.get();
    },
  });

  const batches: number[][] = [];
  for (let start = 0; start < sizes.topicAppends; start += sizes.topicBatch) {
    batches.push(Array.from({ length: sizes.topicBatch }, (_, offset) => start + offset));
  }
  const topic = await measurePair(sizes.topicAppends, {
    rounds,
    ours: () => {
      const channel = new Topic<number>();
      let value = channel.empty();
      for (const batch of batches) value = channel.merge(value, sealJsonList(batch, 'v') as number[]);
      return value;
    },
    baseline: () => {
      const channel = new TheirTopic<number>({ accumulate: true });
      for (const batch of batches) channel.update(batch);
      return channel.get();
    },
  });

  const adds = sizes.aggregateWrites;
  const aggregate = await measurePair(adds, {
    rounds,
    ours: () => {
      const channel = new BinaryAggregate<number>(add);
      let value: number | undefined;
      for (let index = 0; index < adds; index++) value = channel.merge(value, sealJson(index, 'v') as number);
      return value;
    },
    baseline: () => {
      const channel = new TheirBinaryAggregate<number>(add);
      for (let index = 0; index < adds; index++) channel.update([index]);
      return channel.get();
    },
  });

  return [
    { name: `LastValue: ${count(writes)} writes`, ...lastValue, target: 1 },
    {
      name: `Topic: ${count(sizes.topicAppends)} appends, batches of ${sizes.topicBatch}`,
      ...topic,
      target: 1,
    },
    { name: `BinaryAggregate(add): ${count(adds)} writes`, ...aggregate, target: 1 },
  ];
}

/**
 * Formats a count with thousands separators for row names.
 *
 * @example
 * ```ts
 * count(1_000_000); // '1,000,000'
 * ```
 */
export function count(value: number): string {
  return value.toLocaleString('en-US');
}
