import type { JsonValue } from '@wharf/common';
import { SnapshotError } from './channel-error.js';

/** Format tag of every snapshot this package writes. */
export const SNAPSHOT_FORMAT = 'wharf-channels';

/** Format version this release writes and reads. */
export const SNAPSHOT_VERSION = 1;

/**
 * The durable, JSON-ready view of a {@link ChannelSet} or {@link ChannelState}: one entry
 * per checkpointed channel that holds a value (never {@link Untracked}, never a cleared
 * {@link Ephemeral}). Its size is proportional to the state it describes.
 *
 * @example
 * ```ts
 * const snapshot: ChannelSnapshot = { format: 'wharf-channels', version: 1, step: 3, values: { plan: 'p' } };
 * ```
 */
export interface ChannelSnapshot {
  readonly format: typeof SNAPSHOT_FORMAT;
  readonly version: typeof SNAPSHOT_VERSION;
  /** The last step a {@link ChannelState} folded (absent for a set, or before any stamped step). */
  readonly step?: number;
  /**
   * Written by `snapshotText` only: for the list it writes last, how many items it holds and
   * how long its text is, so that `restoreText` can check that text without parsing it.
   * Readers that do not know it ignore it.
   */
  readonly index?: { readonly [channel: string]: RecordedList };
  readonly values: { readonly [channel: string]: JsonValue };
}

/**
 * What checkpoint text records about a list value (see {@link ChannelSnapshot.index}): its
 * item count and the length of its JSON text.
 *
 * @example
 * ```ts
 * const recorded: RecordedList = { items: 2, chars: 9 }; // ["a","b"]
 * ```
 */
export interface RecordedList {
  readonly items: number;
  readonly chars: number;
}

/**
 * What a channel that reads its own checkpoint text is told about it (see
 * {@link Channel.fromSnapshotText}): what the checkpoint recorded, and whether the items may be
 * parsed on first read instead of now.
 *
 * @example
 * ```ts
 * const recorded: RecordedListText = { items: 2, chars: 9, defer: true };
 * ```
 */
export interface RecordedListText extends RecordedList {
  readonly defer: boolean;
}

/**
 * Checks the envelope of a snapshot from outside (format, version, step, values) without
 * looking at the channel values, which the set validates one by one.
 *
 * @throws {@link SnapshotError} with `UNSUPPORTED_SNAPSHOT_VERSION` for another version,
 *   `INVALID_SNAPSHOT` for anything malformed.
 * @example
 * ```ts
 * const { step, values } = readSnapshotEnvelope(JSON.parse(text));
 * ```
 */
export function readSnapshotEnvelope(snapshot: unknown): {
  step: number | undefined;
  values: Record<string, unknown>;
  index: Record<string, RecordedList>;
} {
  if (typeof snapshot !== 'object' || snapshot === null || Array.isArray(snapshot)) {
    throw new SnapshotError('INVALID_SNAPSHOT', 'A channel snapshot must be an object.');
  }
  const record = snapshot as Record<string, unknown>;
  if (record.format !== SNAPSHOT_FORMAT) {
    throw new SnapshotError(
      'INVALID_SNAPSHOT',
      `Not a channel snapshot: format is ${JSON.stringify(record.format) ?? 'missing'}, expected "${SNAPSHOT_FORMAT}".`,
    );
  }
  if (record.version !== SNAPSHOT_VERSION) {
    throw new SnapshotError(
      'UNSUPPORTED_SNAPSHOT_VERSION',
      `Channel snapshot version ${JSON.stringify(record.version) ?? 'missing'} is not supported; this release reads version ${SNAPSHOT_VERSION}.`,
    );
  }
  const step = record.step;
  if (step !== undefined && (typeof step !== 'number' || !Number.isSafeInteger(step) || step < 0)) {
    throw new SnapshotError(
      'INVALID_SNAPSHOT',
      `Snapshot step must be a non-negative integer; got ${JSON.stringify(step)}.`,
    );
  }
  const values = record.values;
  if (typeof values !== 'object' || values === null || Array.isArray(values)) {
    throw new SnapshotError('INVALID_SNAPSHOT', 'Snapshot "values" must be an object keyed by channel name.');
  }
  return { step, values: values as Record<string, unknown>, index: readIndex(record.index, values) };
}

/** The `index` member: absent, or an entry per channel of `values` holding a list. */
function readIndex(index: unknown, values: object): Record<string, RecordedList> {
  if (index === undefined) return {};
  const bad = (reason: string) => new SnapshotError('INVALID_SNAPSHOT', `Snapshot "index" ${reason}.`);
  if (typeof index !== 'object' || index === null || Array.isArray(index)) {
    throw bad('must be an object keyed by channel name');
  }
  for (const [channel, entry] of Object.entries(index)) {
    const { items, chars } = (entry ?? {}) as Record<string, unknown>;
    if (!isCount(items) || !isCount(chars) || chars < 2) {
      throw bad(`entry of channel "${channel}" must be { items, chars } (non-negative integers)`);
    }
    if (!Array.isArray((values as Record<string, unknown>)[channel])) {
      throw bad(`names channel "${channel}", which holds no list`);
    }
  }
  return index as Record<string, RecordedList>;
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/**
 * Parses checkpoint text; the result still goes through {@link readSnapshotEnvelope} and
 * the channels' own checks.
 *
 * @throws {@link SnapshotError} `INVALID_SNAPSHOT` when the text is not JSON.
 * @example
 * ```ts
 * const snapshot = parseSnapshotText('{"format":"wharf-channels","version":1,"values":{}}');
 * ```
 */
export function parseSnapshotText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new SnapshotError('INVALID_SNAPSHOT', `Checkpoint text is not JSON: ${reason}`);
  }
}
