import type { JsonValue } from '@wharf/common';
import { OverwriteChannel } from './overwrite-channel.js';

/**
 * Overwrite channel kept out of every durable view: never in {@link ChannelSet.snapshot},
 * and reset to empty (or its initial value) by a restore. For scratch values that must not
 * be checkpointed.
 *
 * @param initial - optional starting value.
 * @example
 * ```ts
 * const state = new ChannelState({ scratch: new Untracked<number>(), plan: new LastValue<string>() });
 * state.update({ scratch: 42, plan: 'p' });
 * state.snapshot().values; // { plan: 'p' }
 * ```
 */
export class Untracked<TValue = JsonValue> extends OverwriteChannel<TValue> {
  readonly kind = 'Untracked';
  readonly checkpointed = false;
  readonly clearsOnStep = false;
}
