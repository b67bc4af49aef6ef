import type { JsonValue } from '@wharf/common';
import type { Channel } from './channel.js';
import { sealJson } from './json-value.js';

/**
 * Shared rule of the overwrite channels ({@link LastValue}, {@link Ephemeral},
 * {@link Untracked}): each write replaces the value, and two writes in one stamped step
 * are an {@link InvalidConcurrentUpdateError}.
 *
 * @example
 * ```ts
 * class Latest extends OverwriteChannel<string> {
 *   readonly kind = 'Latest';
 *   readonly checkpointed = true;
 *   readonly clearsOnStep = false;
 * }
 * ```
 */
export abstract class OverwriteChannel<TValue> implements Channel<TValue, TValue> {
  abstract readonly kind: string;
  abstract readonly checkpointed: boolean;
  abstract readonly clearsOnStep: boolean;
  readonly allowsConcurrent = false;
  readonly #initial: TValue | undefined;

  constructor(initial?: TValue) {
    this.#initial = initial === undefined ? undefined : (sealJson(initial, 'initial value') as TValue);
  }

  empty(): TValue | undefined {
    return this.#initial;
  }

  merge(_current: TValue | undefined, incoming: TValue): TValue {
    return incoming;
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
