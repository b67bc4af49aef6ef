import { SnapshotError } from './channel-error.js';
import type { JsonValue } from './json-value.js';

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
  readonly values: { readonly [channel: string]: JsonValue };
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
  return { step, values: values as Record<string, unknown> };
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
