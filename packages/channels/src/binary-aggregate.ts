import type { JsonValue } from '@wharf/common';
import type { Channel } from './channel.js';
import { sealJson } from './json-value.js';

/**
 * Options of a {@link BinaryAggregate}.
 *
 * @example
 * ```ts
 * const options: BinaryAggregateOptions<number> = { initial: 0 };
 * ```
 */
export interface BinaryAggregateOptions<TValue> {
  /** Starting value; without it the channel is empty and the first write becomes the value. */
  readonly initial?: TValue;
}

/**
 * Aggregate channel with a user fold: the first write becomes the value (unless an initial
 * value is given), every later write becomes `fold(current, incoming)`. Concurrent
 * same-step writes fold in update order. The fold must be pure and deterministic and
 * return plain JSON; it receives frozen values and must return a new value rather than
 * change `current`. If it throws, the whole update is rejected and nothing changes.
 *
 * @example
 * ```ts
 * const state = new ChannelState({ best: new BinaryAggregate<number>((a, b) => Math.max(a, b)) });
 * state.update({ best: 3 }).update({ best: 7 }).update({ best: 5 });
 * state.get('best'); // 7
 * ```
 */
export class BinaryAggregate<TValue = JsonValue> implements Channel<TValue, TValue> {
  readonly kind = 'BinaryAggregate';
  readonly allowsConcurrent = true;
  readonly checkpointed = true;
  readonly clearsOnStep = false;
  readonly mayThrowOnMerge = true;
  readonly #fold: (current: TValue, incoming: TValue) => TValue;
  readonly #initial: TValue | undefined;

  constructor(
    fold: (current: TValue, incoming: TValue) => TValue,
    options: BinaryAggregateOptions<TValue> = {},
  ) {
    this.#fold = fold;
    this.#initial =
      options.initial === undefined ? undefined : (sealJson(options.initial, 'initial value') as TValue);
  }

  empty(): TValue | undefined {
    return this.#initial;
  }

  merge(current: TValue | undefined, incoming: TValue): TValue {
    if (current === undefined) return incoming;
    return sealJson(this.#fold(current, incoming), 'the fold result') as TValue;
  }

  isReady(value: TValue | undefined): boolean {
    return value !== undefined;
  }

  view(value: TValue): TValue {
    return value;
  }

  toSnapshot(value: TValue): JsonValue {
    return value as JsonValue;
  }

  fromSnapshot(value: unknown, channel: string): TValue {
    return sealJson(value, `snapshot value "${channel}"`) as TValue;
  }
}
