import type { JsonValue } from '@wharf/common';
import { OverwriteChannel } from './overwrite-channel.js';

/**
 * One-shot overwrite channel: its value lives for one step and is cleared when a stamped
 * update (or {@link foldSuperstep}) moves the state to a later step. Unstamped updates
 * never clear it. While it holds a value it is part of snapshots.
 *
 * @example
 * ```ts
 * const state = new ChannelState({ trigger: new Ephemeral<string>() });
 * state.apply(ChannelUpdate.from({ trigger: 'go' }).atStep(1));
 * state.get('trigger'); // 'go'
 * state.advanceTo(2);
 * state.get('trigger'); // undefined
 * ```
 */
export class Ephemeral<TValue = JsonValue> extends OverwriteChannel<TValue> {
  readonly kind = 'Ephemeral';
  readonly checkpointed = true;
  readonly clearsOnStep = true;
}
