import type { ChannelRecord } from './channel.js';
import type { ChannelState } from './channel-state.js';
import type { ChannelUpdate } from './channel-update.js';

/**
 * Folds one superstep's branch results into `state` in the order of `updates` — the
 * orchestrator's task order, never the order in which branches finished — so a Temporal
 * workflow that ran the branches in parallel reaches the same state on replay. Unstamped
 * updates are stamped with `step`; unlabelled ones are named `branch <index>` in errors.
 * All or nothing: if any branch's writes are refused, the state is unchanged.
 *
 * @returns `state`, for chaining.
 * @example
 * ```ts
 * const state = new ChannelState({ results: new Topic<string>(), join: new Barrier(2) });
 * const branches = await Promise.all([runA(), runB()]); // each returns a ChannelUpdate
 * foldSuperstep(state, 1, branches);
 * if (state.consume('join')) runJoin(state.get('results'));
 * ```
 */
export function foldSuperstep<TChannels extends ChannelRecord>(
  state: ChannelState<TChannels>,
  step: number,
  updates: readonly ChannelUpdate<TChannels>[],
): ChannelState<TChannels> {
  return state.foldSuperstep(step, updates);
}
