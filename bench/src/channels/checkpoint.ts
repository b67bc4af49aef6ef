import { Topic as TheirTopic } from '@langchain/langgraph/channels';
import { ChannelState, Topic } from '@wharf/channels';
import type { BenchRow } from '../harness.js';
import { count } from './channel-level.js';
import { measurePair } from './pair.js';
import type { ChannelBenchSizes } from './sizes.js';

/**
 * Checkpoint: a long Topic to JSON text and back, against LangGraph's `checkpoint()` →
 * `JSON.stringify` → `JSON.parse` → `fromCheckpoint()`. Ours twice: through the text API
 * (`snapshotText` → `restoreText`, which skips the defensive copies because no caller
 * ever sees the intermediate objects) and through the object API (`snapshot` →
 * `JSON.stringify` → `JSON.parse` → `restore`, which copies on both sides). One operation
 * is one full round trip.
 *
 * @example
 * ```ts
 * const rows = await checkpointRows(channelBenchSizes(true));
 * ```
 */
export async function checkpointRows(sizes: ChannelBenchSizes): Promise<BenchRow[]> {
  const items = Array.from({ length: sizes.checkpointItems }, (_, index) => `item ${index}`);
  const rounds = Math.max(1, Math.floor(2_000_000 / sizes.checkpointItems));

  const state = new ChannelState({ log: new Topic<string>() });
  state.update({ log: items });
  const channel = new TheirTopic<string>({ accumulate: true });
  channel.update(items);
  const theirs = () => {
    let restored = channel;
    for (let round = 0; round < rounds; round++) {
      const text = JSON.stringify(restored.checkpoint());
      restored = restored.fromCheckpoint(JSON.parse(text));
    }
    if (restored.get().length !== items.length) throw new Error('the restored topic lost items');
  };
  const viaText = await measurePair(rounds, {
    rounds: sizes.rounds,
    ours: () => {
      let restored = state;
      for (let round = 0; round < rounds; round++) {
        const text = restored.snapshotText();
        restored = new ChannelState({ log: new Topic<string>() }).restoreText(text);
      }
      if (restored.get('log')?.length !== items.length) throw new Error('the restored topic lost items');
    },
    baseline: theirs,
  });
  const viaObjects = await measurePair(rounds, {
    rounds: sizes.rounds,
    ours: () => {
      let restored = state;
      for (let round = 0; round < rounds; round++) {
        const text = JSON.stringify(restored.snapshot());
        restored = new ChannelState({ log: new Topic<string>() }).restore(JSON.parse(text));
      }
      if (restored.get('log')?.length !== items.length) throw new Error('the restored topic lost items');
    },
    baseline: theirs,
  });
  const items100k = count(sizes.checkpointItems);
  return [
    { name: `checkpoint, snapshotText/restoreText: Topic of ${items100k}`, ...viaText, target: 1 },
    { name: `checkpoint, snapshot/stringify/parse/restore: Topic of ${items100k}`, ...viaObjects, target: 1 },
  ];
}
