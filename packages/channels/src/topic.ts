import type { JsonValue } from '@wharf/common';
import { AppendOnlyText } from './append-only-text.js';
import { appendOnlyView } from './append-only-view.js';
import type { Channel } from './channel.js';
import { InvalidUpdateError, SnapshotError } from './channel-error.js';
import { DeferredList } from './deferred-list.js';
import { adoptJsonList, sealJsonList } from './json-value.js';
import type { RecordedListText } from './snapshot.js';

/**
 * How a {@link Topic} takes a write that is an array: `'spread'` appends each element
 * (the default, like a node returning several items), `'item'` appends the array as one item.
 *
 * @example
 * ```ts
 * const batches = new Topic<string[]>({ arrays: 'item' });
 * ```
 */
export type TopicArrays = 'spread' | 'item';

/**
 * Options of a {@link Topic}.
 *
 * @example
 * ```ts
 * const options: TopicOptions = { arrays: 'spread' };
 * ```
 */
export interface TopicOptions {
  /** How an array write is appended; default `'spread'`. */
  readonly arrays?: TopicArrays;
}

/**
 * Append channel: every write adds to a list that grows across steps (use
 * {@link ChannelState.reset} to empty it). Concurrent same-step writes are appended in the
 * order of the updates, never in arrival order. Appending is amortised O(1) and snapshots
 * are a single copy of the list, so a long topic never makes checkpoints quadratic. Checkpoint
 * text (`snapshotText`) serialises only what was appended since the list's last checkpoint
 * text, written or restored (see {@link AppendOnlyText}; the list keeps that text in memory).
 * A list restored from checkpoint text that records it (`restoreText`) is kept as that text until
 * its first read (see {@link DeferredList}): appending and writing the next checkpoint text cost
 * what was appended, and the first read parses and checks the items, throwing a
 * {@link SnapshotError} naming the channel and the first bad item if they are corrupt.
 * A read is O(1) whatever the length: it hands out a read-only view of
 * the list (see {@link appendOnlyView}), made once per change, that refuses every change and
 * keeps showing the items it had when it was read, whatever is appended later.
 *
 * @example
 * ```ts
 * const state = new ChannelState({ log: new Topic<string>() });
 * state.update({ log: 'started' }).update({ log: ['fetched', 'parsed'] });
 * state.get('log'); // ['started', 'fetched', 'parsed']
 * ```
 */
export class Topic<TItem = JsonValue> implements Channel<readonly TItem[], TItem | readonly TItem[]> {
  readonly kind = 'Topic';
  readonly allowsConcurrent = true;
  readonly checkpointed = true;
  readonly clearsOnStep = false;
  readonly spreadsArrays: boolean;
  readonly #spread: boolean;
  readonly #texts = new AppendOnlyText();

  constructor(options: TopicOptions = {}) {
    this.#spread = (options.arrays ?? 'spread') === 'spread';
    this.spreadsArrays = this.#spread;
  }

  empty(): readonly TItem[] {
    return [];
  }

  merge(current: readonly TItem[] | undefined, incoming: TItem | readonly TItem[]): readonly TItem[] {
    if (current instanceof DeferredList) {
      const deferred = current as DeferredList<TItem>;
      if (this.#spread && Array.isArray(incoming)) {
        for (let index = 0; index < incoming.length; index++) deferred.append(incoming[index] as TItem);
      } else {
        deferred.append(incoming as TItem);
      }
      return current;
    }
    const list = (current ?? []) as TItem[];
    if (this.#spread && Array.isArray(incoming)) {
      for (let index = 0; index < incoming.length; index++) list.push(incoming[index] as TItem);
    } else {
      list.push(incoming as TItem);
    }
    return list;
  }

  isReady(value: readonly TItem[] | undefined): boolean {
    return value !== undefined && value.length > 0;
  }

  view(value: readonly TItem[]): readonly TItem[] {
    // The list is only ever appended to (a reset starts a new one), and its items are sealed.
    const list = this.#items(value);
    return appendOnlyView(list, list.length);
  }

  toSnapshot(value: readonly TItem[], serialising?: boolean): JsonValue {
    const list = this.#items(value);
    return (serialising === true ? list : list.slice()) as JsonValue;
  }

  snapshotText(value: readonly TItem[]): string {
    if (value instanceof DeferredList) {
      const text = (value as DeferredList<TItem>).text();
      if (text !== undefined) return text;
    }
    return this.#texts.write(this.#items(value));
  }

  fromSnapshotText(text: string, channel: string, recorded?: RecordedListText): readonly TItem[] {
    if (recorded === undefined) {
      const list = this.fromSnapshot(JSON.parse(text), channel, true);
      this.#texts.remember(list, text);
      return list;
    }
    // Checked now: the text is a list of the recorded length. Its items: on first read, or now.
    if (text.charCodeAt(0) !== 91 /* [ */ || text.charCodeAt(text.length - 1) !== 93 /* ] */) {
      throw new SnapshotError('INVALID_SNAPSHOT', `Snapshot value of channel "${channel}" is not a list.`);
    }
    if (text.length !== recorded.chars) {
      throw new SnapshotError(
        'INVALID_SNAPSHOT',
        `Snapshot value of channel "${channel}" is ${text.length} characters long where its checkpoint recorded ${recorded.chars} (the text was cut or changed).`,
      );
    }
    const deferred = new DeferredList<TItem>(text, recorded.items, channel);
    return recorded.defer
      ? (deferred as unknown as readonly TItem[])
      : this.#items(deferred as unknown as readonly TItem[]);
  }

  fromSnapshot(value: unknown, channel: string, owned?: boolean): readonly TItem[] {
    if (!Array.isArray(value)) throw new InvalidUpdateError(channel, 'a Topic snapshot must be an array');
    const path = `snapshot value "${channel}"`;
    return (owned === true ? adoptJsonList(value, path) : sealJsonList(value, path)) as TItem[];
  }

  /** The plain list behind a value, parsing a deferred one on its first read. */
  #items(value: readonly TItem[]): readonly TItem[] {
    if (!(value instanceof DeferredList)) return value;
    return (value as DeferredList<TItem>).items((items, count, body) =>
      this.#texts.rememberBody(items, count, body),
    );
  }
}
