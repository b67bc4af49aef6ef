import { Topic as TheirTopic } from '@langchain/langgraph/channels';
import { ChannelState, Topic } from '@wharf/channels';
import type { BenchRow } from '../harness.js';
import { count } from './channel-level.js';
import { measurePair } from './pair.js';
import type { ChannelBenchSizes } from './sizes.js';

/** Items one hop appends between restoring a checkpoint and writing the next one (one step's writes). */
const STEP_ITEMS = 10;

/**
 * Checkpoint hops on a long Topic, as a run carried across continue-as-new does them: restore
 * from the previous checkpoint's JSON text, append one step's items, write the next checkpoint
 * text. LangGraph: `JSON.parse` → `fromCheckpoint()` → `update()` → `checkpoint()` →
 * `JSON.stringify`. Ours twice: through the text API (`restoreText` → `update` →
 * `snapshotText`) and through the object API (`JSON.parse` → `restore` → `update` →
 * `snapshot` → `JSON.stringify`, what Temporal's payload converter does with `snapshot()`).
 * Every hop starts from the text the one before wrote, and every hop changes the state, so no
 * side can hand back text it was given. One operation is one hop.
 *
 * @example
 * ```ts
 * const rows = await checkpointRows(channelBenchSizes(true));
 * ```
 */
export async function checkpointRows(sizes: ChannelBenchSizes): Promise<BenchRow[]> {
  const items = Array.from({ length: sizes.checkpointItems }, (_, index) => `item ${index}`);
  const step = Array.from({ length: STEP_ITEMS }, (_, index) => `step item ${index}`);
  const hops = Math.max(1, Math.floor(2_000_000 / sizes.checkpointItems));
  const expected = items.length + hops * STEP_ITEMS;

  const state = new ChannelState({ log: new Topic<string>() });
  state.update({ log: items });
  const ourStart = JSON.stringify(state.snapshot());
  const channel = new TheirTopic<string>({ accumulate: true });
  channel.update(items);
  const theirStart = JSON.stringify(channel.checkpoint());

  const theirs = () => {
    let text = theirStart;
    let restored = channel;
    for (let hop = 0; hop < hops; hop++) {
      restored = channel.fromCheckpoint(JSON.parse(text));
      restored.update(step);
      text = JSON.stringify(restored.checkpoint());
    }
    if (restored.get().length !== expected || text.length === 0) throw new Error('the topic lost items');
  };
  const viaText = await measurePair(hops, {
    rounds: sizes.rounds,
    ours: () => {
      let text = ourStart;
      let restored = state;
      for (let hop = 0; hop < hops; hop++) {
        restored = new ChannelState({ log: new Topic<string>() }).restoreText(text);
        restored.update({ log: step });
        text = restored.snapshotText();
      }
      if (restored.get('log')?.length !== expected || text.length === 0)
        throw new Error('the topic lost items');
    },
    baseline: theirs,
  });
  const viaObjects = await measurePair(hops, {
    rounds: sizes.rounds,
    ours: () => {
      let text = ourStart;
      let restored = state;
      for (let hop = 0; hop < hops; hop++) {
        restored = new ChannelState({ log: new Topic<string>() }).restore(JSON.parse(text));
        restored.update({ log: step });
        text = JSON.stringify(restored.snapshot());
      }
      if (restored.get('log')?.length !== expected || text.length === 0)
        throw new Error('the topic lost items');
    },
    baseline: theirs,
  });
  const length = count(sizes.checkpointItems);
  const hop = `restore + ${STEP_ITEMS} appends + checkpoint`;
  return [
    { name: `checkpoint hop (${hop}), text API: Topic of ${length}`, ...viaText, target: 2 },
    { name: `checkpoint hop (${hop}), object API + JSON: Topic of ${length}`, ...viaObjects, target: 2 },
  ];
}
