import { Topic as TheirTopic } from '@langchain/langgraph/channels';
import { ChannelState, LastValue, Topic } from '@wharf/channels';
import { formatRate, measure } from '../harness.js';
import { count } from './channel-level.js';

/**
 * What it costs that our reads cannot change the state: a read after each change of a
 * long Topic (ours makes a frozen copy; LangGraph hands out its live array) and of an
 * object in a LastValue (ours is frozen once, when written). Printed as notes, not rows.
 *
 * @example
 * ```ts
 * console.log(await readCostNotes(true));
 * ```
 */
export async function readCostNotes(smoke: boolean): Promise<string> {
  const length = smoke ? 1_000 : 10_000;
  const reads = smoke ? 100 : 2_000;
  const items = Array.from({ length }, (_, index) => `item ${index}`);

  const state = new ChannelState({ log: new Topic<string>(), plan: new LastValue<{ steps: string[] }>() });
  state.update({ log: items });
  const ourTopic = await measure(reads, () => {
    for (let read = 0; read < reads; read++) state.update({ log: 'x' }).get('log');
  });
  const channel = new TheirTopic<string>({ accumulate: true });
  channel.update(items);
  const theirTopic = await measure(reads, () => {
    for (let read = 0; read < reads; read++) {
      channel.update(['x']);
      channel.get();
    }
  });
  const plan = { steps: ['fetch', 'parse', 'summarise'] };
  const ourObject = await measure(reads * 100, () => {
    for (let read = 0; read < reads * 100; read++) state.update({ plan }).get('plan');
  });
  return [
    'Read isolation (notes, not targets):',
    `- append + get on a ${count(length)}+ item Topic: ours ${formatRate(ourTopic.opsPerSecond)}/s ` +
      `(frozen copy per changed read), LangGraph ${formatRate(theirTopic.opsPerSecond)}/s (live array, mutable by callers)`,
    `- write + get of an object in a LastValue: ours ${formatRate(ourObject.opsPerSecond)}/s ` +
      '(copied and frozen once on write, reads are free)',
  ].join('\n');
}
