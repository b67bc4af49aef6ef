import type { ChannelRecord, UpdateList, UpdateRecord } from './channel.js';
import { ChannelError } from './channel-error.js';

/**
 * Options of {@link ChannelUpdate.from} and {@link ChannelUpdate.fromList}.
 *
 * @example
 * ```ts
 * const options: ChannelUpdateOptions = { step: 3, label: 'planner' };
 * ```
 */
export interface ChannelUpdateOptions {
  /** The step the update belongs to (see {@link ChannelUpdate.atStep}). */
  readonly step?: number;
  /** The writer (node or branch) named in error messages. */
  readonly label?: string;
}

/**
 * The plain-JSON form of a {@link ChannelUpdate}, e.g. an activity result.
 *
 * @example
 * ```ts
 * const json: ChannelUpdateJson = { writes: [['plan', 'p']], step: 2, label: 'planner' };
 * ```
 */
export interface ChannelUpdateJson {
  readonly writes: readonly (readonly [string, unknown])[];
  readonly step?: number;
  readonly label?: string;
}

/**
 * An immutable batch of `[channel, value]` writes returned by one node, applied in order.
 * Stamping it with a step ({@link ChannelUpdate.atStep}) turns on the same-step rules of
 * {@link ChannelState}; a label names the writer in errors.
 *
 * @typeParam TChannels - the channel record the writes are checked against at compile time.
 * @example
 * ```ts
 * const channels = { plan: new LastValue<string>(), log: new Topic<string>() };
 * const update = ChannelUpdate.from<typeof channels>({ plan: 'p', log: 'planned' }).atStep(1).withLabel('planner');
 * ```
 */
export class ChannelUpdate<TChannels extends ChannelRecord = ChannelRecord> {
  /** The writes, in application order. */
  readonly writes: readonly (readonly [string, unknown])[];
  /** The step this update belongs to, or `undefined` when unstamped. */
  readonly step: number | undefined;
  /** The writer's label, or `undefined`. */
  readonly label: string | undefined;

  private constructor(writes: readonly (readonly [string, unknown])[], options: ChannelUpdateOptions) {
    this.writes = writes;
    this.step = options.step === undefined ? undefined : checkStep(options.step);
    this.label = options.label;
  }

  /**
   * Builds an update from a record `{ channel: value }` (keys in insertion order). A key
   * whose value is `undefined` is skipped, as JSON would drop it.
   */
  static from<TChannels extends ChannelRecord = ChannelRecord>(
    writes: UpdateRecord<TChannels>,
    options: ChannelUpdateOptions = {},
  ): ChannelUpdate<TChannels> {
    const list: (readonly [string, unknown])[] = [];
    for (const name of Object.keys(writes)) {
      const value = (writes as Record<string, unknown>)[name];
      if (value !== undefined) list.push([name, value]);
    }
    return new ChannelUpdate(list, options);
  }

  /** Builds an update from a list of `[channel, value]` pairs; a channel may appear twice. */
  static fromList<TChannels extends ChannelRecord = ChannelRecord>(
    writes: UpdateList<TChannels>,
    options: ChannelUpdateOptions = {},
  ): ChannelUpdate<TChannels> {
    return new ChannelUpdate(
      writes.map(([name, value]) => [name, value] as const),
      options,
    );
  }

  /**
   * Rebuilds an update from its {@link ChannelUpdateJson} form (e.g. after it crossed an
   * activity boundary). Checks the shape; values are checked when the update is applied.
   * @throws {@link ChannelError} `INVALID_UPDATE` naming the malformed part.
   */
  static fromJSON<TChannels extends ChannelRecord = ChannelRecord>(json: unknown): ChannelUpdate<TChannels> {
    const record = typeof json === 'object' && json !== null ? (json as Record<string, unknown>) : undefined;
    const writes = record?.writes;
    if (!Array.isArray(writes))
      throw new ChannelError('INVALID_UPDATE', 'An update must have a "writes" array.');
    const list = writes.map((write: unknown, index) => {
      if (!Array.isArray(write) || write.length !== 2 || typeof write[0] !== 'string') {
        throw new ChannelError('INVALID_UPDATE', `writes[${index}] must be a [channel, value] pair.`);
      }
      return [write[0], write[1] as unknown] as const;
    });
    const { step, label } = record as Record<string, unknown>;
    if (step !== undefined && typeof step !== 'number') checkStep(step);
    if (label !== undefined && typeof label !== 'string') {
      throw new ChannelError(
        'INVALID_UPDATE',
        `An update "label" must be a string; got ${JSON.stringify(label)}.`,
      );
    }
    const options: { step?: number; label?: string } = {};
    if (typeof step === 'number') options.step = step;
    if (typeof label === 'string') options.label = label;
    return new ChannelUpdate(list, options);
  }

  /** The same writes stamped with `step` (a non-negative integer). */
  atStep(step: number): ChannelUpdate<TChannels> {
    return new ChannelUpdate(this.writes, this.#options({ step }));
  }

  /** The same writes labelled with the writer's name. */
  withLabel(label: string): ChannelUpdate<TChannels> {
    return new ChannelUpdate(this.writes, this.#options({ label }));
  }

  /** The plain-JSON form; {@link ChannelUpdate.fromJSON} reads it back. */
  toJSON(): ChannelUpdateJson {
    return {
      writes: this.writes,
      ...(this.step === undefined ? {} : { step: this.step }),
      ...(this.label === undefined ? {} : { label: this.label }),
    };
  }

  #options(override: ChannelUpdateOptions): ChannelUpdateOptions {
    const options: { step?: number; label?: string } = {};
    if (this.step !== undefined) options.step = this.step;
    if (this.label !== undefined) options.label = this.label;
    return { ...options, ...override };
  }
}

/** Checks a step number. @internal */
export function checkStep(step: unknown): number {
  if (typeof step !== 'number' || !Number.isSafeInteger(step) || step < 0) {
    throw new ChannelError(
      'INVALID_UPDATE',
      `A step must be a non-negative integer; got ${JSON.stringify(step)}.`,
    );
  }
  return step;
}
