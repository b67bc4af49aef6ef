import type { JsonValue } from '@wharf/common';
import type { Channel } from './channel.js';
import { InvalidUpdateError } from './channel-error.js';

/**
 * Options of a {@link Delta}.
 *
 * @example
 * ```ts
 * const options: DeltaOptions = { initial: 100 };
 * ```
 */
export interface DeltaOptions {
  /** Starting total; default 0. */
  readonly initial?: number;
}

/**
 * Numeric accumulator: every write is a number added to the running total (start 0
 * unless `initial` says otherwise). A write that is not a finite number is an
 * {@link InvalidUpdateError}; a total that overflows to infinity rejects the update.
 *
 * Not LangGraph's `DeltaChannel` (a delta-encoded checkpoint channel): here "delta" means
 * an increment, as in a counter or a token budget.
 *
 * @example
 * ```ts
 * const state = new ChannelState({ tokens: new Delta() });
 * state.update({ tokens: 120 }).update({ tokens: -20 });
 * state.get('tokens'); // 100
 * ```
 */
export class Delta implements Channel<number, number> {
  readonly kind = 'Delta';
  readonly allowsConcurrent = true;
  readonly checkpointed = true;
  readonly clearsOnStep = false;
  readonly mayThrowOnMerge = true;
  readonly #initial: number;

  constructor(options: DeltaOptions = {}) {
    const initial = options.initial ?? 0;
    this.#initial = Delta.#number(initial, 'initial value');
  }

  empty(): number {
    return this.#initial;
  }

  accept(incoming: JsonValue, channel: string): number {
    return Delta.#number(incoming, channel);
  }

  merge(current: number | undefined, incoming: number): number {
    const total = (current ?? this.#initial) + incoming;
    if (!Number.isFinite(total)) throw new RangeError(`the total ${current} + ${incoming} is not finite`);
    return total;
  }

  isReady(value: number | undefined): boolean {
    return value !== undefined;
  }

  view(value: number): number {
    return value;
  }

  toSnapshot(value: number): JsonValue {
    return value;
  }

  fromSnapshot(value: unknown, channel: string): number {
    return Delta.#number(value, channel);
  }

  static #number(value: unknown, channel: string): number {
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      const shown =
        typeof value === 'string' ? `the string "${value}"` : (JSON.stringify(value) ?? String(value));
      throw new InvalidUpdateError(channel, `a Delta channel adds numbers; got ${shown}`);
    }
    return value;
  }
}
