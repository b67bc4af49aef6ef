import type { JsonObject, JsonValue } from '@wharf/common';
import type { Channel } from './channel.js';
import { ChannelError, InvalidUpdateError } from './channel-error.js';
import { sealJson } from './json-value.js';

/**
 * Name barrier (a join on named branches): every write is an object whose keys are
 * arrival names (its values are kept, e.g. a result ref); keys merge into the channel's
 * object, a repeated name replaces its value. Ready once every expected name has arrived.
 * A name outside `expected` is an {@link InvalidUpdateError}. Fire the waiting node once
 * with {@link ChannelState.consume}.
 *
 * @param expected - the names to wait for (non-empty, distinct).
 * @example
 * ```ts
 * const state = new ChannelState({ join: new NamedBarrier(['search', 'code']) });
 * state.update({ join: { search: 'ref-1' } });
 * state.update({ join: { code: 'ref-2' } });
 * state.isReady('join'); // true
 * state.get('join'); // { search: 'ref-1', code: 'ref-2' }
 * ```
 */
export class NamedBarrier implements Channel<JsonObject, JsonObject> {
  readonly kind = 'NamedBarrier';
  readonly allowsConcurrent = true;
  readonly checkpointed = true;
  readonly clearsOnStep = false;
  /** The names to wait for. */
  readonly expected: readonly string[];
  readonly #expected: ReadonlySet<string>;

  constructor(expected: readonly string[]) {
    const names = new Set(expected);
    if (expected.length === 0 || names.size !== expected.length || names.has('__proto__')) {
      throw new ChannelError(
        'INVALID_CHANNEL_OPTIONS',
        `NamedBarrier expects a non-empty list of distinct names; got ${JSON.stringify(expected)}.`,
      );
    }
    this.expected = Object.freeze(expected.slice());
    this.#expected = names;
  }

  empty(): JsonObject {
    return {};
  }

  accept(incoming: JsonValue, channel: string): JsonObject {
    if (typeof incoming !== 'object' || incoming === null || Array.isArray(incoming)) {
      throw new InvalidUpdateError(channel, 'a NamedBarrier write is an object keyed by arrival name');
    }
    for (const name of Object.keys(incoming)) {
      if (!this.#expected.has(name)) {
        throw new InvalidUpdateError(
          channel,
          `unexpected arrival "${name}"; this barrier waits for ${this.expected.map((each) => `"${each}"`).join(', ')}`,
        );
      }
    }
    return incoming as JsonObject;
  }

  merge(current: JsonObject | undefined, incoming: JsonObject): JsonObject {
    const arrived = (current ?? {}) as Record<string, JsonValue>;
    for (const name of Object.keys(incoming)) arrived[name] = incoming[name] as JsonValue;
    return arrived;
  }

  isReady(value: JsonObject | undefined): boolean {
    if (value === undefined) return false;
    for (const name of this.expected) if (!Object.hasOwn(value, name)) return false;
    return true;
  }

  view(value: JsonObject): JsonObject {
    return Object.freeze({ ...value });
  }

  toSnapshot(value: JsonObject, serialising?: boolean): JsonValue {
    return serialising === true ? value : { ...value };
  }

  fromSnapshot(value: unknown, channel: string): JsonObject {
    return { ...this.accept(sealJson(value, `snapshot value "${channel}"`), channel) };
  }
}
