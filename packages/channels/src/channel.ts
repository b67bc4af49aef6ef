import type { JsonValue } from '@wharf/common';
import type { RecordedListText } from './snapshot.js';

/**
 * One state channel: it owns the rule that folds an incoming write into its current
 * value. A channel object holds no value itself; a {@link ChannelSet} keeps the values, so
 * one channel definition can serve many sets.
 *
 * Built-ins: overwrite channels (`allowsConcurrent: false`) {@link LastValue},
 * {@link Ephemeral}, {@link Untracked}; aggregate channels (`allowsConcurrent: true`)
 * {@link Topic}, {@link BinaryAggregate}, {@link Delta}, {@link Messages},
 * {@link Barrier}, {@link NamedBarrier}. Implement the interface for a custom rule.
 *
 * Contract for implementers: `accept` (optional) validates and normalises a write (it
 * receives sealed, frozen JSON — with `spreadsArrays`, an array write arrives as an unfrozen
 * copy of sealed items) and throws {@link InvalidUpdateError} for a write it cannot take;
 * `merge` must not throw for a write `accept` took — unless `mayThrowOnMerge` is set, in
 * which case `merge` must leave `current` untouched (it is then evaluated before any write
 * of the update is committed, so a throw changes nothing). A merge may mutate and return
 * `current` when it created that object itself (e.g. an internal array); values it returns
 * are never handed to callers directly: readers get `view(value)`.
 *
 * @typeParam TValue - the value the channel holds.
 * @typeParam TWrite - what one write carries.
 * @example
 * ```ts
 * // A max-channel: keeps the largest number written so far.
 * const max: Channel<number, number> = {
 *   kind: 'Max', allowsConcurrent: true, checkpointed: true, clearsOnStep: false,
 *   empty: () => undefined,
 *   accept: (incoming, name) => {
 *     if (typeof incoming !== 'number') throw new InvalidUpdateError(name, 'expected a number');
 *     return incoming;
 *   },
 *   merge: (current, incoming) => (current === undefined ? incoming : Math.max(current, incoming)),
 *   isReady: (value) => value !== undefined,
 *   view: (value) => value,
 *   toSnapshot: (value) => value,
 *   fromSnapshot: (value, name) => max.accept?.(sealJson(value, name), name) ?? 0,
 * };
 * ```
 */
export interface Channel<TValue = JsonValue, TWrite = TValue> {
  /** Human-readable kind, used in error messages (`LastValue`, `Topic`, …). */
  readonly kind: string;
  /** May two writers write this channel in the same step? False for overwrite channels. */
  readonly allowsConcurrent: boolean;
  /** Is the value part of {@link ChannelSet.snapshot}? False for {@link Untracked}. */
  readonly checkpointed: boolean;
  /** Is the value cleared when the step advances? True for {@link Ephemeral}. */
  readonly clearsOnStep: boolean;
  /**
   * Set when an array write is taken apart into its items and the array itself is never
   * kept ({@link Topic} in spread mode, {@link Messages}): the items are checked and frozen,
   * the array is only copied. Saves a freeze per write.
   */
  readonly spreadsArrays?: boolean;
  /** Set when `merge` runs user code that may throw (see the contract above). */
  readonly mayThrowOnMerge?: boolean;
  /** The value of a fresh or reset channel; `undefined` means empty. */
  empty(): TValue | undefined;
  /**
   * Validates one incoming write (already sealed JSON) and returns what `merge` folds.
   * Without it, every JSON value is taken as a `TWrite` as it is.
   */
  accept?(incoming: JsonValue, channel: string): TWrite;
  /** Folds one accepted write into the current value and returns the new value. */
  merge(current: TValue | undefined, incoming: TWrite): TValue;
  /** Can the nodes that wait on this channel run? (A barrier: have all arrived?) */
  isReady(value: TValue | undefined): boolean;
  /** The read-only value callers see; must not let them change the held value. */
  view(value: TValue): TValue;
  /**
   * The durable form of the value; must not share mutable parts with it — unless
   * `serialising` is true: the result is then turned into text at once and never handed out,
   * so it may be the value itself.
   */
  toSnapshot(value: TValue, serialising?: boolean): JsonValue;
  /**
   * Rebuilds a value from its durable form. `value` comes from outside (a parsed
   * checkpoint): check it is JSON ({@link sealJson}, {@link sealJsonList}) and of the right
   * shape, and return a value the set may own; throw on a malformed one. `owned` is true
   * when the set parsed the text itself and nobody else holds `value`: it may be adopted
   * without a copy ({@link adoptJsonList}).
   */
  fromSnapshot(value: unknown, channel: string, owned?: boolean): TValue;
  /**
   * Optional, with {@link Channel.fromSnapshotText}: the JSON text of `toSnapshot(value)`,
   * written faster than `JSON.stringify` can (a {@link Topic} reuses the text of the items it
   * wrote before). {@link ChannelSet.snapshotText} writes such a channel last.
   */
  snapshotText?(value: TValue): string;
  /**
   * Optional, with {@link Channel.snapshotText}: `fromSnapshot(JSON.parse(text), channel, true)`,
   * remembering the text for the next `snapshotText`. Throws like `fromSnapshot`, and a
   * `SyntaxError` for text that is not JSON. `recorded` is what the checkpoint recorded about
   * the text (its writer's item count and length): the value must match it (else throw a
   * {@link SnapshotError}); with `defer` the channel may check only the length now and parse
   * the items on the first read, throwing a `SnapshotError` there.
   */
  fromSnapshotText?(text: string, channel: string, recorded?: RecordedListText): TValue;
}

/**
 * Any channel, whatever its value and write types.
 *
 * @example
 * ```ts
 * const definitions: Record<string, AnyChannel> = { plan: new LastValue<string>() };
 * ```
 */
// biome-ignore lint/suspicious/noExplicitAny: the widest channel type; values are checked at runtime.
export type AnyChannel = Channel<any, any>;

/**
 * A record of named channels: what a {@link ChannelSet} is built from.
 *
 * @example
 * ```ts
 * const definitions = { plan: new LastValue<string>(), log: new Topic<string>() } satisfies ChannelRecord;
 * ```
 */
export type ChannelRecord = Record<string, AnyChannel>;

/**
 * The value type a channel holds.
 *
 * @example
 * ```ts
 * type Log = ChannelValue<Topic<string>>; // readonly string[]
 * ```
 */
export type ChannelValue<TChannel> = TChannel extends Channel<infer TValue, infer _TWrite> ? TValue : never;

/**
 * The type one write to a channel carries.
 *
 * @example
 * ```ts
 * type LogWrite = ChannelWrite<Topic<string>>; // string | readonly string[]
 * ```
 */
export type ChannelWrite<TChannel> = TChannel extends Channel<infer _TValue, infer TWrite> ? TWrite : never;

/**
 * The writes of an update as a record: every key must be a channel of `TChannels`.
 *
 * @example
 * ```ts
 * const writes: UpdateRecord<{ plan: LastValue<string> }> = { plan: 'draft' };
 * ```
 */
export type UpdateRecord<TChannels extends ChannelRecord> = {
  readonly [TName in keyof TChannels]?: ChannelWrite<TChannels[TName]>;
};

/**
 * The writes of an update as a list of `[channel, value]` pairs, applied in list order.
 *
 * @example
 * ```ts
 * const writes: UpdateList<{ log: Topic<string> }> = [['log', 'a'], ['log', 'b']];
 * ```
 */
export type UpdateList<TChannels extends ChannelRecord> = ReadonlyArray<
  { [TName in keyof TChannels & string]: readonly [TName, ChannelWrite<TChannels[TName]>] }[keyof TChannels &
    string]
>;
