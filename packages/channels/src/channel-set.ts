import type { AnyChannel, ChannelRecord, ChannelValue } from './channel.js';
import { ChannelError, SnapshotError, UnknownChannelError } from './channel-error.js';
import type { JsonValue } from './json-value.js';
import type { ChannelSnapshot, RecordedList } from './snapshot.js';
import { parseSnapshotText, readSnapshotEnvelope, SNAPSHOT_FORMAT, SNAPSHOT_VERSION } from './snapshot.js';

/**
 * One channel, its value and the step bookkeeping of {@link ChannelState}.
 * @internal
 */
export interface Cell {
  readonly name: string;
  readonly channel: AnyChannel;
  /** Copies of the channel's flags, read on every write. */
  readonly allowsConcurrent: boolean;
  readonly mayThrowOnMerge: boolean;
  readonly validates: boolean;
  readonly spreadsArrays: boolean;
  value: unknown;
  view: unknown;
  viewFresh: boolean;
  /** Epoch (see ChannelState) in which the channel was last written. */
  changedEpoch: number;
  /** Epoch in which an overwrite channel last got a stamped write, and that writer's ordinal. */
  writerEpoch: number;
  writer: number;
  readonly clearsOnStep: boolean;
  /** Marks an overwrite cell written by the batch being prepared, and by which writer. */
  batchMark: number;
  batchWriter: number;
  /** Marks a cell whose merge was computed ahead by the batch being prepared, and the result. */
  stageMark: number;
  stageValue: unknown;
}

/**
 * A named map of channels plus their current JSON values: reads, readiness, reset and
 * snapshots. Writes go through {@link ChannelState}, which adds the step rules.
 *
 * Values handed out (by `get` or `snapshot`) are frozen, copied or read-only views: changing them cannot
 * change the set.
 *
 * @typeParam TChannels - the channel record; names and value types follow from it.
 * @example
 * ```ts
 * const set = new ChannelSet({ plan: new LastValue<string>(), log: new Topic<string>() });
 * set.names(); // ['plan', 'log']
 * set.get('log'); // []
 * ```
 */
export class ChannelSet<TChannels extends ChannelRecord = ChannelRecord> {
  readonly #cells = new Map<string, Cell>();
  /** The same cells in a prototype-less object: the fastest lookup on the write path. */
  readonly #index: Record<string, Cell | undefined> = Object.create(null);
  readonly #stepCells: Cell[] = [];

  /** @throws {@link ChannelError} `INVALID_CHANNEL_OPTIONS` when an entry is not a channel. */
  constructor(channels: TChannels) {
    for (const name of Object.keys(channels)) {
      const channel = channels[name];
      if (typeof channel?.merge !== 'function' || typeof channel.empty !== 'function') {
        throw new ChannelError(
          'INVALID_CHANNEL_OPTIONS',
          `"${name}" is not a channel (expected an object with merge, empty, isReady, …).`,
        );
      }
      const cell: Cell = {
        name,
        channel,
        allowsConcurrent: channel.allowsConcurrent,
        mayThrowOnMerge: channel.mayThrowOnMerge === true,
        validates: typeof channel.accept === 'function',
        spreadsArrays: channel.spreadsArrays === true,
        clearsOnStep: channel.clearsOnStep,
        value: channel.empty(),
        view: undefined,
        viewFresh: false,
        changedEpoch: -1,
        writerEpoch: -1,
        writer: -1,
        batchMark: 0,
        batchWriter: -1,
        stageMark: 0,
        stageValue: undefined,
      };
      this.#cells.set(name, cell);
      this.#index[name] = cell;
      if (channel.clearsOnStep) this.#stepCells.push(cell);
    }
  }

  /** Channel names in declaration order. */
  names(): (keyof TChannels & string)[] {
    return [...this.#cells.keys()];
  }

  /** Does the set have a channel of this name? */
  has(name: string): name is keyof TChannels & string {
    return this.#cells.has(name);
  }

  /** The channel definition of `name`. */
  channel<TName extends keyof TChannels & string>(name: TName): TChannels[TName] {
    return this.#cell(name).channel as TChannels[TName];
  }

  /**
   * The current value of `name` (frozen, a frozen copy, or a read-only view), or `undefined` when empty.
   * @throws {@link UnknownChannelError} for a name the set does not have.
   */
  get<TName extends keyof TChannels & string>(name: TName): ChannelValue<TChannels[TName]> | undefined {
    const cell = this.#cell(name);
    if (cell.value === undefined) return undefined;
    if (!cell.viewFresh) {
      cell.view = cell.channel.view(cell.value);
      cell.viewFresh = true;
    }
    return cell.view as ChannelValue<TChannels[TName]>;
  }

  /** Can the nodes waiting on `name` run? (A value is present; a barrier: everyone arrived.) */
  isReady(name: keyof TChannels & string): boolean {
    const cell = this.#cell(name);
    return cell.channel.isReady(cell.value);
  }

  /** Puts `name` back to its empty (or initial) value, e.g. to start a new barrier round. */
  reset(name: keyof TChannels & string): void {
    const cell = this.#cell(name);
    this.#set(cell, cell.channel.empty());
  }

  /** The durable view: every checkpointed channel that holds a value. */
  snapshot(): ChannelSnapshot {
    return { format: SNAPSHOT_FORMAT, version: SNAPSHOT_VERSION, values: this.#durableValues() };
  }

  /** The snapshot, so that `JSON.stringify(set)` writes a checkpoint. */
  toJSON(): ChannelSnapshot {
    return this.snapshot();
  }

  /**
   * The text of `JSON.stringify(set.snapshot())` (the same JSON value, members possibly in
   * another order, plus an `index` member), without the defensive copies: the fastest way to
   * a checkpoint string. A channel that writes its own text (a {@link Topic}) writes only what
   * changed since its last checkpoint text, and the longest such channel is written last, where
   * {@link ChannelSet.restoreText} can keep its text; `index` records that channel's item count
   * and text length, which `restoreText` checks without parsing the text (readers that do not
   * know `index` ignore it). `extra` adds envelope fields (the state's `step`).
   */
  snapshotText(extra: { step?: number } = {}): string {
    // Concatenated, not joined: joining would copy a long Topic's reused text once more.
    let members = '';
    let last: Cell | undefined;
    let lastLength = -1;
    for (const cell of this.#cells.values()) {
      if (!cell.channel.checkpointed || cell.value === undefined) continue;
      if (writesOwnText(cell.channel)) {
        const length = lengthOf(cell.value);
        if (length > lastLength) {
          if (last !== undefined) members = withMember(members, last);
          last = cell;
          lastLength = length;
          continue;
        }
      }
      members = withMember(members, cell);
    }
    let index = '';
    if (last !== undefined) {
      const text = ownText(last);
      const name = JSON.stringify(last.name);
      index = `,"index":{${name}:{"items":${lengthOf(last.value)},"chars":${text.length}}}`;
      const member = `${name}:${text}`;
      members = members === '' ? member : `${members},${member}`;
    }
    const envelope = JSON.stringify({ format: SNAPSHOT_FORMAT, version: SNAPSHOT_VERSION, ...extra });
    return `${envelope.slice(0, -1)}${index},"values":{${members}}}`;
  }

  /**
   * Replaces every checkpointed value with the snapshot's (channels it omits become empty)
   * and empties {@link Untracked} channels. Validates everything first: on error the set is
   * unchanged. The set keeps copies: the snapshot object stays the caller's.
   * @throws {@link SnapshotError} for a malformed or unsupported snapshot,
   *   {@link UnknownChannelError} for a channel this set does not have.
   */
  restore(snapshot: unknown): this {
    return this.#restore(snapshot, false);
  }

  /**
   * {@link ChannelSet.restore} from checkpoint text (e.g. from {@link ChannelSet.snapshotText}):
   * parses it and adopts the parsed values without copying them.
   *
   * When the text ends with a list whose length and item count it records (`index`, as
   * `snapshotText` writes it), that list's items are not parsed now. What is checked when:
   * - at restore, `SnapshotError` on failure and nothing changed: the text is JSON up to that
   *   list, the format, version, step and `index`, every other value, and that the list's text
   *   starts with `[`, ends with `]` and has the recorded length (a cut or an edit that changes
   *   the length);
   * - at the first read of that channel (`get`, `snapshot`, `toJSON`; `isReady`, appending and
   *   `snapshotText` do not read it): that its items are JSON and as many as recorded, else a
   *   `SnapshotError` (`INVALID_SNAPSHOT`) naming the channel and the first bad item (or both
   *   counts), raised again by every later read; `snapshotText` keeps writing the text as read.
   *
   * An edit that keeps the text JSON, its length and its count is not detected (nor is it when
   * the items are parsed at restore). `{ items: 'at-restore' }` makes every check at restore.
   * Text without an `index` (older writers) is parsed and checked at restore.
   * @throws {@link SnapshotError} when the text is not JSON, when a recorded length (or, with
   *   `items: 'at-restore'`, count) does not match, and as `restore` does.
   */
  restoreText(text: string, options: RestoreTextOptions = {}): this {
    this.adoptText(text, options);
    return this;
  }

  /**
   * {@link ChannelSet.restoreText}, returning the snapshot's step. When the text ends with a
   * channel that reads its own text (as {@link ChannelSet.snapshotText} writes it), that
   * channel's value is read on its own and keeps its text; everything else is parsed as usual.
   * @internal
   */
  adoptText(text: string, options: RestoreTextOptions = {}): number | undefined {
    const defer = options.items !== 'at-restore';
    const split = this.#splitText(text, defer);
    if (split !== undefined) {
      const { step } = readSnapshotEnvelope(split.envelope);
      this.#restore(split.envelope, true, split);
      return step;
    }
    const snapshot = parseSnapshotText(text);
    const { step } = readSnapshotEnvelope(snapshot);
    this.#restore(snapshot, true);
    return step;
  }

  /**
   * Splits checkpoint text whose last member is a channel that reads its own text:
   * `<head>"name":[…]}}` is `<head>"name":[]}}` (the envelope, parsed as usual) with
   * `[…]` in the placeholder's slot (read by the channel, which keeps the text). Both parts
   * being JSON makes the whole text JSON with exactly that value there, so nothing is parsed
   * twice. Returns `undefined` whenever that cannot be established: the caller parses the whole
   * text instead.
   */
  #splitText(text: string, defer: boolean): Split | undefined {
    if (!text.endsWith(']}}')) return undefined;
    // Where each such channel's key first appears, searched from the start (the other channels
    // come first, so this never reads the long value); the one appearing last is tried first.
    const candidates: { cell: Cell; key: string; at: number }[] = [];
    for (const cell of this.#cells.values()) {
      if (!writesOwnText(cell.channel)) continue;
      const key = `${JSON.stringify(cell.name)}:[`;
      const at = text.indexOf(key);
      if (at > 0) candidates.push({ cell, key, at });
    }
    candidates.sort((left, right) => right.at - left.at);
    for (const { cell, key, at: first } of candidates) {
      // A few more places the key appears (inside other values); a wrong one fails to parse.
      for (let at = first, attempt = 0; at > 0 && attempt < 4; attempt++) {
        const split = this.#splitAt(text, cell, { start: at + key.length - 1, defer });
        if (split !== undefined) return split;
        at = text.indexOf(key, at + 1);
      }
    }
    return undefined;
  }

  /**
   * `#splitText` with the value of `cell` starting at `start` (its '['), or `undefined`.
   * @throws {@link SnapshotError} when the envelope records the value and it does not match.
   */
  #splitAt(text: string, cell: Cell, place: { start: number; defer: boolean }): Split | undefined {
    const { start } = place;
    // The key's quote must open a member name: preceded by '{' or ',' (not '\\' or a space).
    const before = text.charCodeAt(start - JSON.stringify(cell.name).length - 2);
    if (before !== 123 && before !== 44) return undefined;
    let envelope: unknown;
    try {
      envelope = JSON.parse(`${text.slice(0, start)}[]}}`);
    } catch {
      return undefined;
    }
    // The slot closes the object that closes the root: with no other root members it is the
    // last `values` member, and the last member of a name is the one JSON.parse keeps.
    if (typeof envelope !== 'object' || envelope === null || Array.isArray(envelope)) return undefined;
    for (const key of Object.keys(envelope)) if (!ENVELOPE_KEYS.has(key)) return undefined;
    const values = (envelope as { values?: unknown }).values;
    if (typeof values !== 'object' || values === null) return undefined;
    const placeholder = (values as Record<string, unknown>)[cell.name];
    if (!Array.isArray(placeholder) || placeholder.length > 0) return undefined;
    const read = cell.channel.fromSnapshotText as NonNullable<AnyChannel['fromSnapshotText']>;
    let recorded: RecordedList | undefined;
    try {
      recorded = recordedOf(readSnapshotEnvelope(envelope).index, cell.name);
    } catch {
      return undefined; // Parsing the whole text says what is wrong.
    }
    const value = text.slice(start, -2);
    if (recorded !== undefined) {
      // The writer recorded this value: it must be what was recorded, no second guess.
      return {
        envelope,
        cell,
        value: this.#read(cell, () =>
          read.call(cell.channel, value, cell.name, { ...recorded, defer: place.defer }),
        ),
      };
    }
    try {
      return { envelope, cell, value: read.call(cell.channel, value, cell.name) };
    } catch {
      return undefined;
    }
  }

  /** Runs a channel's read of its snapshot value; wraps a failure in a `SnapshotError` naming the channel. */
  #read(cell: Cell, read: () => unknown): unknown {
    try {
      return read();
    } catch (error) {
      if (SnapshotError.isInstance(error)) throw error;
      const reason = error instanceof Error ? error.message : String(error);
      throw new SnapshotError(
        'INVALID_SNAPSHOT',
        `Snapshot value of channel "${cell.name}" is invalid: ${reason}`,
      );
    }
  }

  #durableValues(): Record<string, JsonValue> {
    const values: Record<string, JsonValue> = {};
    for (const cell of this.#cells.values()) {
      if (!cell.channel.checkpointed || cell.value === undefined) continue;
      values[cell.name] = cell.channel.toSnapshot(cell.value);
    }
    return values;
  }

  /** `read`: one channel's value, already restored from its own text (see `#splitText`). */
  #restore(snapshot: unknown, owned: boolean, read?: Split): this {
    const { values, index } = readSnapshotEnvelope(snapshot);
    const restored = new Map<Cell, unknown>();
    for (const name of Object.keys(values)) {
      const cell = this.#cells.get(name);
      if (cell === undefined)
        throw new UnknownChannelError(name, this.names(), 'in the snapshot being restored');
      if (!cell.channel.checkpointed) {
        throw new SnapshotError(
          'INVALID_SNAPSHOT',
          `Channel "${name}" (${cell.channel.kind}) is never checkpointed.`,
        );
      }
      if (cell === read?.cell) {
        restored.set(cell, read.value);
        continue;
      }
      const value = values[name];
      const recorded = recordedOf(index, name);
      if (recorded !== undefined && (value as unknown[]).length !== recorded.items) {
        throw new SnapshotError(
          'INVALID_SNAPSHOT',
          `Snapshot value of channel "${name}" holds ${(value as unknown[]).length} items where its checkpoint recorded ${recorded.items}.`,
        );
      }
      restored.set(
        cell,
        this.#read(cell, () => cell.channel.fromSnapshot(value, name, owned)),
      );
    }
    for (const cell of this.#cells.values()) {
      this.#set(cell, restored.has(cell) ? restored.get(cell) : cell.channel.empty());
    }
    return this;
  }

  /**
   * The cell of `name`, or `undefined`.
   * @internal
   */
  cellOf(name: string): Cell | undefined {
    return this.#index[name];
  }

  /**
   * The prototype-less name → cell index (read-only by contract).
   * @internal
   */
  cellIndex(): Readonly<Record<string, Cell | undefined>> {
    return this.#index;
  }

  /**
   * Empties every channel cleared at a step boundary ({@link Ephemeral}).
   * @internal
   */
  clearStepValues(): void {
    for (const cell of this.#stepCells) this.#set(cell, cell.channel.empty());
  }

  #set(cell: Cell, value: unknown): void {
    cell.value = value;
    cell.viewFresh = false;
  }

  #cell(name: string): Cell {
    const cell = this.#cells.get(name);
    if (cell === undefined) throw new UnknownChannelError(name, this.names());
    return cell;
  }
}

/** Checkpoint text cut in two by `ChannelSet.#splitText`. */
interface Split {
  /** The envelope with an empty placeholder list in the slot of `cell`. */
  readonly envelope: unknown;
  readonly cell: Cell;
  /** The value of `cell`, restored from its own text. */
  readonly value: unknown;
}

/**
 * Options of {@link ChannelSet.restoreText} and {@link ChannelState.restoreText}.
 *
 * @example
 * ```ts
 * const options: RestoreTextOptions = { items: 'at-restore' };
 * ```
 */
export interface RestoreTextOptions {
  /**
   * When the items of a recorded list (see {@link ChannelSet.restoreText}) are parsed and
   * checked: `'at-first-read'` (the default) or `'at-restore'`.
   */
  readonly items?: 'at-first-read' | 'at-restore';
}

/** The members a snapshot envelope may have. */
const ENVELOPE_KEYS = new Set(['format', 'version', 'step', 'index', 'values']);

/** The index entry of `channel`, if the snapshot has one (own members only). */
function recordedOf(index: Record<string, RecordedList>, channel: string): RecordedList | undefined {
  return Object.hasOwn(index, channel) ? index[channel] : undefined;
}

/** The length of a list value (an array or a deferred list), or 0. */
function lengthOf(value: unknown): number {
  const length = (value as { length?: unknown }).length;
  return typeof length === 'number' ? length : 0;
}

/** The checkpoint text of a channel that writes its own. */
function ownText(cell: Cell): string {
  const { channel } = cell;
  return (channel.snapshotText as NonNullable<AnyChannel['snapshotText']>).call(channel, cell.value);
}

/** Does the channel write and read its own checkpoint text? */
function writesOwnText(channel: AnyChannel): boolean {
  return typeof channel.snapshotText === 'function' && typeof channel.fromSnapshotText === 'function';
}

/** `members` with `"name":<value text>` of a cell added, unless JSON.stringify would leave it out (undefined). */
function withMember(members: string, cell: Cell): string {
  const { channel } = cell;
  const text: string | undefined = writesOwnText(channel)
    ? ownText(cell)
    : JSON.stringify(channel.toSnapshot(cell.value, true));
  if (text === undefined) return members;
  const member = `${JSON.stringify(cell.name)}:${text}`;
  return members === '' ? member : `${members},${member}`;
}
