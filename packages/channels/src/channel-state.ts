import type { JsonValue } from '@wharf/common';
import type { Cell } from './cell.js';
import type { ChannelRecord, ChannelValue, UpdateRecord } from './channel.js';
import { ChannelError, InvalidConcurrentUpdateError, UnknownChannelError } from './channel-error.js';
import { ChannelSet } from './channel-set.js';
import type { ChannelUpdateOptions } from './channel-update.js';
import { ChannelUpdate, checkStep } from './channel-update.js';
import { sealJson, sealJsonList } from './json-value.js';
import type { ChannelSnapshot } from './snapshot.js';
import { readSnapshotEnvelope } from './snapshot.js';
import type { RestoreTextOptions } from './split-checkpoint-text.js';

/**
 * Workflow state made of channels, and its own reducer: {@link ChannelState.apply} folds
 * every write of a {@link ChannelUpdate} into the channel that owns it.
 *
 * Step rules. A stamped update (see {@link ChannelUpdate.atStep}) belongs to its step:
 * when the step number grows, the per-step bookkeeping starts over and {@link Ephemeral}
 * channels are cleared; a second write to an overwrite channel within one step throws
 * {@link InvalidConcurrentUpdateError} naming the channel, the step and both writers; a
 * step lower than the current one is a `STEP_OUT_OF_ORDER` error. An unstamped update is a
 * step of its own: last write wins, no conflict check, nothing is cleared.
 *
 * Every apply is all-or-nothing: an unknown channel, a value that is not plain JSON, a
 * write the channel refuses, a conflict or a failing fold throws before anything changes.
 *
 * The state is mutable (a Temporal workflow keeps one in a variable); `apply` returns it
 * for chaining. Everything it hands out is frozen, copied or a read-only view.
 *
 * @example
 * ```ts
 * const state = new ChannelState({ plan: new LastValue<string>(), log: new Topic<string>() });
 * state.apply(ChannelUpdate.from({ plan: 'p', log: 'planned' }, { step: 1, label: 'planner' }));
 * state.get('plan'); // 'p'
 * state.changedInStep(); // ['plan', 'log']
 * ```
 */
export class ChannelState<TChannels extends ChannelRecord = ChannelRecord> {
  /** The channels and their values. */
  readonly channels: ChannelSet<TChannels>;
  #step: number | undefined;
  /** Bumped whenever a step starts (a stamped step advances, an unstamped update, a restore). */
  #epoch = 0;
  /** Writers of the current epoch by ordinal: a label, a branch index, or -1 (unnamed update). */
  readonly #labels: (string | number)[] = [];
  #labelCount = 0;
  #batch = 0;
  #stamped = false;
  #busy = false;
  // Buffers reused by every fold: the validated writes waiting to be committed.
  readonly #cells: Cell[] = [];
  readonly #values: unknown[] = [];
  readonly #ordinals: number[] = [];
  readonly #single: (ChannelUpdate<TChannels> | undefined)[] = [undefined];
  readonly #index: Readonly<Record<string, Cell | undefined>>;

  /**
   * @param channels - a record of channels, or a {@link ChannelSet} (which then belongs to
   *   this state: the step bookkeeping lives beside the values, so give each state its own set).
   */
  constructor(channels: TChannels | ChannelSet<TChannels>) {
    this.channels = channels instanceof ChannelSet ? channels : new ChannelSet(channels);
    this.#index = this.channels.cellIndex();
  }

  /**
   * Folds `update` into `state` and returns `state`: the reducer form, `state = ChannelState.apply(state, update)`.
   */
  static apply<TChannels extends ChannelRecord>(
    state: ChannelState<TChannels>,
    update: ChannelUpdate<TChannels>,
  ): ChannelState<TChannels> {
    return state.apply(update);
  }

  /** Restores a new state of these channels from a snapshot (see {@link ChannelState.restore}). */
  static fromSnapshot<TChannels extends ChannelRecord>(
    channels: TChannels,
    snapshot: unknown,
  ): ChannelState<TChannels> {
    return new ChannelState(channels).restore(snapshot);
  }

  /** The last stamped step folded, or `undefined` before the first one. */
  get step(): number | undefined {
    return this.#step;
  }

  /** Channel names in declaration order. */
  names(): (keyof TChannels & string)[] {
    return this.channels.names();
  }

  /** Does the state have a channel of this name? */
  has(name: string): name is keyof TChannels & string {
    return this.channels.has(name);
  }

  /** The current (read-only) value of `name`, or `undefined` when empty. */
  get<TName extends keyof TChannels & string>(name: TName): ChannelValue<TChannels[TName]> | undefined {
    return this.channels.get(name);
  }

  /** Can the nodes waiting on `name` run? */
  isReady(name: keyof TChannels & string): boolean {
    return this.channels.isReady(name);
  }

  /** Folds every write of `update` into its channel (all or nothing) and returns this state. */
  apply(update: ChannelUpdate<TChannels>): this {
    const single = this.#single;
    single[0] = update;
    try {
      this.#fold(update.step, single, false);
    } finally {
      single[0] = undefined;
    }
    return this;
  }

  /**
   * Shorthand for `apply(ChannelUpdate.from(writes, options))`, with the channel names and
   * value types checked at compile time.
   */
  update(writes: UpdateRecord<TChannels>, options: ChannelUpdateOptions = {}): this {
    return this.apply(ChannelUpdate.from<TChannels>(writes, options));
  }

  /**
   * Folds the results of one superstep's branches in array order (never completion order):
   * unstamped updates are stamped with `step`, unlabelled ones are named `branch <index>`.
   * All or nothing across the whole step. See also {@link foldSuperstep}.
   */
  foldSuperstep(step: number, updates: readonly ChannelUpdate<TChannels>[]): this {
    checkStep(step);
    for (let index = 0; index < updates.length; index++) {
      const stamped = (updates[index] as ChannelUpdate<TChannels>).step;
      if (stamped !== undefined && stamped !== step) {
        throw new ChannelError(
          'STEP_OUT_OF_ORDER',
          `Branch ${index} is stamped with step ${stamped} but is being folded into step ${step}.`,
        );
      }
    }
    this.#fold(step, updates, true);
    return this;
  }

  /** Moves to `step` without writing: clears {@link Ephemeral} channels if the step grows. */
  advanceTo(step: number): this {
    this.#fold(checkStep(step), [], false);
    return this;
  }

  /**
   * Names of the channels written in the current step (a stamped step, or the last
   * unstamped update), in declaration order: the triggers for nodes subscribed to them.
   */
  changedInStep(): (keyof TChannels & string)[] {
    return this.channels.names().filter((name) => this.channels.cellOf(name)?.changedEpoch === this.#epoch);
  }

  /** Empties `name` (or puts back its initial value): the documented way to reset an aggregate. */
  reset(name: keyof TChannels & string): this {
    this.channels.reset(name);
    return this;
  }

  /**
   * If `name` is ready, resets it and returns `true`; otherwise returns `false` and changes
   * nothing. Makes a barrier fire exactly once per round.
   */
  consume(name: keyof TChannels & string): boolean {
    if (!this.channels.isReady(name)) return false;
    this.channels.reset(name);
    return true;
  }

  /** The durable view (see {@link ChannelSet.snapshot}) plus the current step. */
  snapshot(): ChannelSnapshot {
    const { format, version, values } = this.channels.snapshot();
    return this.#step === undefined
      ? { format, version, values }
      : { format, version, step: this.#step, values };
  }

  /** The snapshot, so that `JSON.stringify(state)` writes a checkpoint. */
  toJSON(): ChannelSnapshot {
    return this.snapshot();
  }

  /**
   * `JSON.stringify(state.snapshot())` without the defensive copies: the fastest way to a
   * checkpoint string (e.g. for `continueAsNew`).
   */
  snapshotText(): string {
    return this.channels.snapshotText(this.#step === undefined ? {} : { step: this.#step });
  }

  /**
   * Replaces the state with a snapshot's (validated first; on error nothing changes) and
   * starts fresh step bookkeeping at the snapshot's step.
   */
  restore(snapshot: unknown): this {
    const { step } = readSnapshotEnvelope(snapshot);
    this.channels.restore(snapshot);
    return this.#restarted(step);
  }

  /**
   * {@link ChannelState.restore} from checkpoint text, adopting the parsed values without a
   * copy. A long topic's items recorded by `snapshotText` are parsed on the channel's first read
   * unless `options.items` is `'at-restore'`: see {@link ChannelSet.restoreText} for what is
   * checked when, and which error each check raises.
   */
  restoreText(text: string, options: RestoreTextOptions = {}): this {
    return this.#restarted(this.channels.adoptText(text, options));
  }

  #restarted(step: number | undefined): this {
    this.#step = step;
    this.#epoch++;
    this.#labelCount = 0;
    return this;
  }

  /** Validates every write of `updates`, then commits them all; throws before any change. */
  #fold(
    step: number | undefined,
    updates: readonly (ChannelUpdate<TChannels> | undefined)[],
    branches: boolean,
  ): void {
    if (this.#busy) {
      throw new ChannelError(
        'INVALID_UPDATE',
        'A channel fold must not write to the state it is folding into.',
      );
    }
    const stamped = step !== undefined;
    this.#stamped = stamped;
    if (stamped && this.#step !== undefined && step < this.#step) {
      throw new ChannelError(
        'STEP_OUT_OF_ORDER',
        `Step ${step} comes after step ${this.#step}: steps never go back.`,
      );
    }
    const advancing = !stamped || this.#step === undefined || step > this.#step;
    const epoch = advancing ? this.#epoch + 1 : this.#epoch;
    const first = advancing ? 0 : this.#labelCount;
    const batch = ++this.#batch;
    const cells = this.#cells;
    const values = this.#values;
    const ordinals = this.#ordinals;
    const cellIndex = this.#index;
    let count = 0;
    this.#busy = true;
    try {
      for (let index = 0; index < updates.length; index++) {
        const writes = (updates[index] as ChannelUpdate<TChannels>).writes;
        const ordinal = first + index;
        for (let position = 0; position < writes.length; position++) {
          const write = writes[position] as readonly [string, unknown];
          const name = write[0];
          const cell = cellIndex[name];
          if (cell === undefined) throw new UnknownChannelError(name, this.channels.names());
          const { channel } = cell;
          const raw = write[1];
          const sealedValue =
            cell.spreadsArrays && Array.isArray(raw)
              ? (sealJsonList(raw, `write to channel "${name}"`) as JsonValue)
              : sealWrite(raw, name);
          const value = cell.validates ? (channel.accept as AcceptFunction)(sealedValue, name) : sealedValue;
          if (stamped && !cell.allowsConcurrent) {
            const earlier =
              cell.batchMark === batch
                ? cell.batchWriter
                : !advancing && cell.writerEpoch === epoch
                  ? cell.writer
                  : -1;
            if (earlier >= 0) {
              const writers = [
                this.#label(earlier, { updates, first, branches }),
                this.#label(ordinal, { updates, first, branches }),
              ] as const;
              throw new InvalidConcurrentUpdateError({ channel: name, kind: channel.kind, step, writers });
            }
            cell.batchMark = batch;
            cell.batchWriter = ordinal;
          }
          let folded = value;
          if (cell.mayThrowOnMerge) {
            // Merges that may throw run now, before anything is committed.
            const current =
              cell.stageMark === batch
                ? cell.stageValue
                : stamped && advancing && cell.clearsOnStep
                  ? channel.empty()
                  : cell.value;
            folded = mergeOrExplain(cell, current, value);
            cell.stageMark = batch;
            cell.stageValue = folded;
          }
          cells[count] = cell;
          values[count] = folded;
          ordinals[count] = ordinal;
          count++;
        }
      }
      this.#commit(count, advancing ? epoch : -1);
    } finally {
      this.#busy = false;
      // Drop references to written values; keep the buffers' capacity.
      for (let index = 0; index < count; index++) {
        values[index] = undefined;
        (cells[index] as Cell).stageValue = undefined;
      }
    }
    if (advancing) this.#labelCount = 0;
    for (let index = 0; index < updates.length; index++) {
      this.#labels[this.#labelCount++] =
        (updates[index] as ChannelUpdate<TChannels>).label ?? (branches ? index : -1);
    }
    if (stamped) this.#step = step;
  }

  /** Commits the buffered writes; `advanceTo` is the new epoch when a step starts, else -1. */
  #commit(count: number, advanceTo: number): void {
    const stamped = this.#stamped;
    if (advanceTo >= 0) {
      this.#epoch = advanceTo;
      if (stamped) this.channels.clearStepValues();
    }
    const epoch = this.#epoch;
    for (let index = 0; index < count; index++) {
      const cell = this.#cells[index] as Cell;
      const { channel } = cell;
      cell.value = cell.mayThrowOnMerge
        ? this.#values[index]
        : channel.merge(cell.value, this.#values[index]);
      cell.viewFresh = false;
      cell.changedEpoch = epoch;
      if (stamped && !cell.allowsConcurrent) {
        cell.writerEpoch = epoch;
        cell.writer = this.#ordinals[index] as number;
      }
    }
  }

  /** The writer's name for errors: its quoted label, `branch <index>` or `update #<n>` (its place in the step). */
  #label(
    ordinal: number,
    batch: { updates: readonly (ChannelUpdate<TChannels> | undefined)[]; first: number; branches: boolean },
  ): string {
    const { updates, first, branches } = batch;
    let entry: string | number | undefined;
    if (ordinal >= first) {
      entry = (updates[ordinal - first] as ChannelUpdate<TChannels>).label;
    } else {
      entry = this.#labels[ordinal];
    }
    if (typeof entry === 'string') return `"${entry}"`;
    if (entry === undefined && ordinal >= first && branches) entry = ordinal - first;
    return entry !== undefined && entry >= 0 ? `branch ${entry}` : `update #${ordinal + 1}`;
  }
}

/** Seals a written value; builds the error path only when it fails. */
function sealWrite(value: unknown, channel: string): JsonValue {
  const type = typeof value;
  if (type === 'string' || type === 'boolean' || (type === 'number' && Number.isFinite(value))) {
    return value === 0 ? 0 : (value as JsonValue);
  }
  return sealJson(value, `write to channel "${channel}"`);
}

type AcceptFunction = (incoming: JsonValue, channel: string) => unknown;

/** Runs a merge that may throw; wraps the failure in a `MERGE_FAILED` error naming the channel. */
function mergeOrExplain(cell: Cell, current: unknown, incoming: unknown): unknown {
  try {
    return cell.channel.merge(current, incoming);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ChannelError(
      'MERGE_FAILED',
      `Merging a write into channel "${cell.name}" (${cell.channel.kind}) failed: ${reason}. Nothing was changed.`,
      { cause: error },
    );
  }
}
