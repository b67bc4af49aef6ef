import type { AnyChannel, ChannelRecord, ChannelValue } from './channel.js';
import { ChannelError, SnapshotError, UnknownChannelError } from './channel-error.js';
import type { JsonValue } from './json-value.js';
import type { ChannelSnapshot } from './snapshot.js';
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
    return { format: SNAPSHOT_FORMAT, version: SNAPSHOT_VERSION, values: this.#durableValues(false) };
  }

  /** The snapshot, so that `JSON.stringify(set)` writes a checkpoint. */
  toJSON(): ChannelSnapshot {
    return this.snapshot();
  }

  /**
   * `JSON.stringify(set.snapshot())` without the defensive copies: the fastest way to a
   * checkpoint string. `extra` adds envelope fields (the state's `step`).
   */
  snapshotText(extra: { step?: number } = {}): string {
    const values = this.#durableValues(true);
    return JSON.stringify({ format: SNAPSHOT_FORMAT, version: SNAPSHOT_VERSION, ...extra, values });
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
   * @throws {@link SnapshotError} when the text is not JSON, and as `restore` does.
   */
  restoreText(text: string): this {
    return this.#restore(parseSnapshotText(text), true);
  }

  /**
   * Restores from a snapshot object nobody else holds (just parsed), adopting its values.
   * @internal
   */
  adopt(snapshot: unknown): this {
    return this.#restore(snapshot, true);
  }

  #durableValues(serialising: boolean): Record<string, JsonValue> {
    const values: Record<string, JsonValue> = {};
    for (const cell of this.#cells.values()) {
      if (!cell.channel.checkpointed || cell.value === undefined) continue;
      values[cell.name] = cell.channel.toSnapshot(cell.value, serialising);
    }
    return values;
  }

  #restore(snapshot: unknown, owned: boolean): this {
    const { values } = readSnapshotEnvelope(snapshot);
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
      try {
        restored.set(cell, cell.channel.fromSnapshot(values[name], name, owned));
      } catch (error) {
        if (SnapshotError.isInstance(error)) throw error;
        const reason = error instanceof Error ? error.message : String(error);
        throw new SnapshotError(
          'INVALID_SNAPSHOT',
          `Snapshot value of channel "${name}" is invalid: ${reason}`,
        );
      }
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
