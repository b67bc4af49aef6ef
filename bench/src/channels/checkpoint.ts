import { Topic as TheirTopic } from '@langchain/langgraph/channels';
import { ChannelState, Topic } from '@wharf/channels';
import { type BenchRow, measure } from '../harness.js';
import { count } from './channel-level.js';
import { measurePair } from './pair.js';
import type { ChannelBenchSizes } from './sizes.js';

/** Items one hop appends between restoring a checkpoint and writing the next one (one step's writes). */
export const STEP_ITEMS = 10;

/** The checkpoint rows, and the notes printed under the table. */
export interface CheckpointRows {
  rows: BenchRow[];
  notes: string[];
}

/**
 * Checkpoint hops on a long Topic, as a run carried across continue-as-new does them: restore
 * from the previous checkpoint's JSON text, append one step's items, write the next checkpoint
 * text. LangGraph: `JSON.parse` → `fromCheckpoint()` → `update()` → `checkpoint()` →
 * `JSON.stringify`. Ours through the text API (`restoreText` → `update` → `snapshotText`) and
 * through the object API (`JSON.parse` → `restore` → `update` → `snapshot` → `JSON.stringify`,
 * what Temporal's payload converter does with `snapshot()`).
 *
 * `restoreText` parses the long topic's items on the topic's first read, not at restore, so the
 * text API is measured three ways: hops that only append (nothing parsed), hops that also read
 * the topic (every hop parses it: the deferred cost, paid), and hops that parse and check
 * everything at restore (`items: 'at-restore'`). Both sides read the topic's last item in the
 * reading hops. Every hop starts from the text the one before wrote, and every hop changes the
 * state, so no side can hand back text it was given; each side's last state is checked after
 * the timing (it must hold every item). One operation is one hop.
 *
 * @example
 * ```ts
 * const rows = await checkpointRows(channelBenchSizes(true));
 * ```
 */
export async function checkpointRows(sizes: ChannelBenchSizes): Promise<CheckpointRows> {
  const items = Array.from({ length: sizes.checkpointItems }, (_, index) => `item ${index}`);
  const step = Array.from({ length: STEP_ITEMS }, (_, index) => `step item ${index}`);
  const hops = sizes.checkpointHops;
  const expected = items.length + hops * STEP_ITEMS;
  const lastItem = step[STEP_ITEMS - 1];

  const state = new ChannelState({ log: new Topic<string>() });
  state.update({ log: items });
  const ourStart = JSON.stringify(state.snapshot());
  const channel = new TheirTopic<string>({ accumulate: true });
  channel.update(items);
  const theirStart = JSON.stringify(channel.checkpoint());

  let theirLast = channel;
  const theirs = (read: boolean) => () => {
    let text = theirStart;
    let restored = channel;
    for (let hop = 0; hop < hops; hop++) {
      restored = channel.fromCheckpoint(JSON.parse(text));
      if (read) readLast(restored.get(), hop === 0 ? items.at(-1) : lastItem);
      restored.update(step);
      text = JSON.stringify(restored.checkpoint());
    }
    theirLast = restored;
  };
  let ourLast = state;
  const ours = (hop: (text: string, index: number) => ChannelState<{ log: Topic<string> }>) => () => {
    let text = ourStart;
    let restored = state;
    for (let index = 0; index < hops; index++) {
      restored = hop(text, index);
      text = restored.snapshotText();
    }
    ourLast = restored;
  };
  const fresh = () => new ChannelState({ log: new Topic<string>() });
  const measured = async (our: () => void, their: () => void) => {
    const rates = await measurePair(hops, { rounds: sizes.rounds, ours: our, baseline: their });
    if (ourLast.get('log')?.length !== expected || theirLast.get().length !== expected)
      throw new Error('the topic lost items');
    return rates;
  };

  const appendOnly = await measured(
    ours((text) => fresh().restoreText(text).update({ log: step })),
    theirs(false),
  );
  const reading = await measured(
    ours((text, index) => {
      const restored = fresh().restoreText(text);
      readLast(restored.get('log') ?? [], index === 0 ? items.at(-1) : lastItem);
      return restored.update({ log: step });
    }),
    theirs(true),
  );
  const eager = await measured(
    ours((text) => fresh().restoreText(text, { items: 'at-restore' }).update({ log: step })),
    theirs(false),
  );
  const viaObjects = await measured(() => {
    let text = ourStart;
    let restored = state;
    for (let hop = 0; hop < hops; hop++) {
      restored = fresh().restore(JSON.parse(text));
      restored.update({ log: step });
      text = JSON.stringify(restored.snapshot());
    }
    ourLast = restored;
  }, theirs(false));

  // What no design that parses the items can go below: `JSON.parse` of the topic's list alone,
  // once a hop. LangGraph's hop parses the same text and also stringifies it, so a row whose
  // hops parse the items (the reading and at-restore rows) is capped at their hop / the parse.
  const listText = JSON.stringify(items);
  let parsedLength = 0;
  const parseOnly = await measure(
    hops,
    () => {
      for (let hop = 0; hop < hops; hop++) parsedLength = (JSON.parse(listText) as unknown[]).length;
    },
    sizes.rounds,
  );
  if (parsedLength !== items.length) throw new Error('the parse lost items');
  const cap = (against: number) => (parseOnly.opsPerSecond / against).toFixed(2);
  const notes = [
    `Cap of the info rows that parse the items: JSON.parse of the topic's list alone runs ${formatHops(parseOnly.opsPerSecond)}; ` +
      `against LangGraph's in-memory hops that puts any design at most at ${cap(reading.baseline)} (reading row) and ` +
      `${cap(eager.baseline)} (at-restore row). The object API's caller parses and stringifies the whole ` +
      `snapshot on both sides, which caps that row near 1. Checkpoints are judged by the rows against ` +
      `LangGraph's checkpointer serde.`,
  ];

  const length = count(sizes.checkpointItems);
  const hop = `restore + ${STEP_ITEMS} appends + checkpoint`;
  const rows: BenchRow[] = [
    { name: `checkpoint hop (${hop}), text API: Topic of ${length}`, ...appendOnly, target: 2 },
    // Information only: checkpoints are judged bytes to bytes against LangGraph's checkpointer
    // serde (checkpoint-serde.ts). Against the in-memory `checkpoint()`, a hop that parses the
    // items is capped by the parse (the note), and the object API's caller parses and
    // stringifies the whole snapshot on both sides.
    {
      name: `checkpoint hop (${hop}) + read of the topic, text API: Topic of ${length}`,
      ...reading,
      target: 'info',
    },
    {
      name: `checkpoint hop (${hop}), text API, items checked at restore: Topic of ${length}`,
      ...eager,
      target: 'info',
    },
    { name: `checkpoint hop (${hop}), object API + JSON: Topic of ${length}`, ...viaObjects, target: 'info' },
  ];
  return { rows, notes };
}

function formatHops(perSecond: number): string {
  return `${perSecond.toFixed(1)} hops/s (${(1000 / perSecond).toFixed(2)} ms a hop)`;
}

/**
 * Reads a list's last item (a whole-list read: for us, the topic's first read after a restore).
 *
 * @example
 * ```ts
 * readLast(state.get('log') ?? [], 'step item 9');
 * ```
 */
export function readLast(list: readonly string[], expected: string | undefined): void {
  if (list[list.length - 1] !== expected) throw new Error('the topic lost its last item');
}
