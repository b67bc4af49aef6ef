import type { JsonValue } from '@wharf/common';
import { OverwriteChannel } from './overwrite-channel.js';

/**
 * Overwrite channel: each write replaces the value. One writer per stamped step; a second
 * same-step write is an {@link InvalidConcurrentUpdateError} naming both writers.
 *
 * @param initial - optional starting value (the channel is empty without it).
 * @example
 * ```ts
 * const state = new ChannelState({ plan: new LastValue<string>() });
 * state.update({ plan: 'draft' }).update({ plan: 'final' });
 * state.get('plan'); // 'final'
 * ```
 */
export class LastValue<TValue = JsonValue> extends OverwriteChannel<TValue> {
  readonly kind = 'LastValue';
  readonly checkpointed = true;
  readonly clearsOnStep = false;
}
