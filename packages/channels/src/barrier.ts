import type { JsonValue } from '@wharf/common';
import type { Channel } from './channel.js';
import { ChannelError, InvalidUpdateError } from './channel-error.js';
import { adoptJsonList, sealJsonList } from './json-value.js';

/**
 * Count barrier (a join): every write is one arrival, kept in arrival-list order; the
 * channel is ready once at least `expected` arrivals are in. Concurrent same-step arrivals
 * are the point, so they are allowed and listed in update order.
 *
 * To fire the waiting node exactly once, call {@link ChannelState.consume}: it returns
 * `true` and empties the barrier only when it is ready; arrivals after that start a new round.
 *
 * @param expected - arrivals needed, a positive integer.
 * @example
 * ```ts
 * const state = new ChannelState({ join: new Barrier(2) });
 * state.update({ join: 'left' });
 * state.isReady('join'); // false
 * state.update({ join: 'right' });
 * state.consume('join'); // true — run the joining node now
 * state.consume('join'); // false — it already fired
 * ```
 */
export class Barrier<TArrival = JsonValue> implements Channel<readonly TArrival[], TArrival> {
  readonly kind = 'Barrier';
  readonly allowsConcurrent = true;
  readonly checkpointed = true;
  readonly clearsOnStep = false;
  /** Arrivals needed before the barrier is ready. */
  readonly expected: number;

  constructor(expected: number) {
    if (!Number.isSafeInteger(expected) || expected < 1) {
      throw new ChannelError(
        'INVALID_CHANNEL_OPTIONS',
        `Barrier expects a positive integer count; got ${expected}.`,
      );
    }
    this.expected = expected;
  }

  empty(): readonly TArrival[] {
    return [];
  }

  merge(current: readonly TArrival[] | undefined, incoming: TArrival): readonly TArrival[] {
    const list = (current ?? []) as TArrival[];
    list.push(incoming);
    return list;
  }

  isReady(value: readonly TArrival[] | undefined): boolean {
    return value !== undefined && value.length >= this.expected;
  }

  view(value: readonly TArrival[]): readonly TArrival[] {
    return Object.freeze(value.slice());
  }

  toSnapshot(value: readonly TArrival[], serialising?: boolean): JsonValue {
    return (serialising === true ? value : value.slice()) as JsonValue;
  }

  fromSnapshot(value: unknown, channel: string, owned?: boolean): readonly TArrival[] {
    if (!Array.isArray(value)) throw new InvalidUpdateError(channel, 'a Barrier snapshot must be an array');
    const path = `snapshot value "${channel}"`;
    return (owned === true ? adoptJsonList(value, path) : sealJsonList(value, path)) as TArrival[];
  }
}
