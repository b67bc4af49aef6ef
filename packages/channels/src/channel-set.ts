import type { JsonValue } from '@wharf/common';
import type { Cell } from './cell.js';
import type { ChannelRecord, ChannelValue } from './channel.js';
import { ChannelError, SnapshotError, UnknownChannelError } from './channel-error.js';
import type { ChannelSnapshot } from './snapshot.js';
import { parseSnapshotText, readSnapshotEnvelope, SNAPSHOT_FORMAT, SNAPSHOT_VERSION } from './snapshot.js';
import {
  lengthOf,
  ownText,
  type RestoreTextOptions,
  readSnapshotValue,
  recordedOf,
  type Split,
  splitCheckpointText,
  writesOwnText,
} from './split-checkpoint-text.js';

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
    const split = splitCheckpointText(text, this.#cells.values(), defer);
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

  #durableValues(): Record<string, JsonValue> {
    const values: Record<string, JsonValue> = {};
    for (const cell of this.#cells.values()) {
      if (!cell.channel.checkpointed || cell.value === undefined) continue;
      values[cell.name] = cell.channel.toSnapshot(cell.value);
    }
    return values;
  }

  /** `read`: one channel's value, already restored from its own text (see {@link splitCheckpointText}). */
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
        readSnapshotValue(cell, () => cell.channel.fromSnapshot(value, name, owned)),
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
