import { MemorySaver } from '@langchain/langgraph';
import { Topic as TheirTopic } from '@langchain/langgraph/channels';
import { ChannelState, Topic } from '@wharf/channels';
import type { BenchRow } from '../harness.js';
import { count } from './channel-level.js';
import { readLast, STEP_ITEMS } from './checkpoint.js';
import { measurePair } from './pair.js';
import type { ChannelBenchSizes } from './sizes.js';

/**
 * The checkpoint hops of {@link checkpointRows}, bytes to bytes as each side stores them in
 * real use. LangGraph: its checkpointers' serializer (`JsonPlusSerializer`, what `MemorySaver`,
 * the SQLite and PostgreSQL savers use): `loadsTyped` → `fromCheckpoint()` → `update()` →
 * `checkpoint()` → `dumpsTyped`. Ours: what Temporal's default payload converter does with a
 * workflow argument (UTF-8 bytes of its JSON), around the text API (`continueAsNew(text)`: the
 * text is a JSON string in the payload) and around the object API (`continueAsNew(snapshot)`).
 * The text API is timed twice: hops that only append, and hops that also read the topic
 * (both sides read its last item). One operation is one hop.
 *
 * @example
 * ```ts
 * const rows = await checkpointSerdeRows(channelBenchSizes(true));
 * ```
 */
export async function checkpointSerdeRows(sizes: ChannelBenchSizes): Promise<BenchRow[]> {
  const items = Array.from({ length: sizes.checkpointItems }, (_, index) => `item ${index}`);
  const step = Array.from({ length: STEP_ITEMS }, (_, index) => `step item ${index}`);
  const hops = sizes.checkpointHops;
  const expected = items.length + hops * STEP_ITEMS;
  const lastOf = (hop: number) => (hop === 0 ? items.at(-1) : step.at(-1));
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  const toBytes = (value: unknown) => encoder.encode(JSON.stringify(value));
  const fromBytes = (bytes: Uint8Array): unknown => JSON.parse(decoder.decode(bytes));

  const state = new ChannelState({ log: new Topic<string>() });
  state.update({ log: items });
  const textStart = toBytes(state.snapshotText());
  const objectStart = toBytes(state.snapshot());
  const { serde } = new MemorySaver();
  const channel = new TheirTopic<string>({ accumulate: true });
  channel.update(items);
  const [, theirStart] = await serde.dumpsTyped(channel.checkpoint());

  let theirLast = channel;
  const theirs = (read: boolean) => async () => {
    let bytes = theirStart;
    let restored = channel;
    for (let hop = 0; hop < hops; hop++) {
      restored = channel.fromCheckpoint(await serde.loadsTyped('json', bytes));
      if (read) readLast(restored.get(), lastOf(hop));
      restored.update(step);
      [, bytes] = await serde.dumpsTyped(restored.checkpoint());
    }
    theirLast = restored;
  };
  let ourLast = state;
  const fresh = () => new ChannelState({ log: new Topic<string>() });
  const viaText = (read: boolean) => () => {
    let bytes = textStart;
    let restored = state;
    for (let hop = 0; hop < hops; hop++) {
      restored = fresh().restoreText(fromBytes(bytes) as string);
      if (read) readLast(restored.get('log') ?? [], lastOf(hop));
      restored.update({ log: step });
      bytes = toBytes(restored.snapshotText());
    }
    ourLast = restored;
  };
  const viaObjects = () => {
    let bytes = objectStart;
    let restored = state;
    for (let hop = 0; hop < hops; hop++) {
      restored = fresh().restore(fromBytes(bytes));
      restored.update({ log: step });
      bytes = toBytes(restored.snapshot());
    }
    ourLast = restored;
  };
  const measured = async (ours: () => unknown, baseline: () => unknown) => {
    const rates = await measurePair(hops, { rounds: sizes.rounds, ours, baseline });
    if (ourLast.get('log')?.length !== expected || theirLast.get().length !== expected)
      throw new Error('the topic lost items');
    return rates;
  };
  const appendOnly = await measured(viaText(false), theirs(false));
  const reading = await measured(viaText(true), theirs(true));
  const objects = await measured(viaObjects, theirs(false));

  const length = count(sizes.checkpointItems);
  const hop = `bytes → restore + ${STEP_ITEMS} appends + checkpoint → bytes`;
  const against = "LangGraph's checkpointer serde";
  return [
    {
      name: `checkpoint hop (${hop}), text API, vs ${against}: Topic of ${length}`,
      ...appendOnly,
      target: 2,
    },
    {
      name: `checkpoint hop (${hop}) + read of the topic, text API, vs ${against}: Topic of ${length}`,
      ...reading,
      target: 2,
    },
    { name: `checkpoint hop (${hop}), object API, vs ${against}: Topic of ${length}`, ...objects, target: 2 },
  ];
}
