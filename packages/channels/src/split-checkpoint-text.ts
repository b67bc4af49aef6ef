import type { Cell } from './cell.js';
import type { AnyChannel } from './channel.js';
import { SnapshotError } from './channel-error.js';
import type { RecordedList } from './snapshot.js';
import { readSnapshotEnvelope } from './snapshot.js';

/**
 * Splits checkpoint text whose last member is a channel that reads its own text:
 * `<head>"name":[…]}}` is `<head>"name":[]}}` (the envelope, parsed as usual) with
 * `[…]` in the placeholder's slot (read by the channel, which keeps the text). Both parts
 * being JSON makes the whole text JSON with exactly that value there, so nothing is parsed
 * twice. Returns `undefined` whenever that cannot be established: the caller parses the whole
 * text instead.
 * @throws {@link SnapshotError} when the envelope records the value and it does not match.
 * @internal
 */
export function splitCheckpointText(text: string, cells: Iterable<Cell>, defer: boolean): Split | undefined {
  if (!text.endsWith(']}}')) return undefined;
  // Where each such channel's key first appears, searched from the start (the other channels
  // come first, so this never reads the long value); the one appearing last is tried first.
  const candidates: { cell: Cell; key: string; at: number }[] = [];
  for (const cell of cells) {
    if (!writesOwnText(cell.channel)) continue;
    const key = `${JSON.stringify(cell.name)}:[`;
    const at = text.indexOf(key);
    if (at > 0) candidates.push({ cell, key, at });
  }
  candidates.sort((left, right) => right.at - left.at);
  for (const { cell, key, at: first } of candidates) {
    // A few more places the key appears (inside other values); a wrong one fails to parse.
    for (let at = first, attempt = 0; at > 0 && attempt < 4; attempt++) {
      const split = splitAt(text, cell, { start: at + key.length - 1, defer });
      if (split !== undefined) return split;
      at = text.indexOf(key, at + 1);
    }
  }
  return undefined;
}

/**
 * {@link splitCheckpointText} with the value of `cell` starting at `start` (its '['), or `undefined`.
 * @throws {@link SnapshotError} when the envelope records the value and it does not match.
 */
function splitAt(text: string, cell: Cell, place: { start: number; defer: boolean }): Split | undefined {
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
      value: readSnapshotValue(cell, () =>
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

/**
 * Runs a channel's read of its snapshot value; wraps a failure in a `SnapshotError` naming the channel.
 * @internal
 */
export function readSnapshotValue(cell: Cell, read: () => unknown): unknown {
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

/**
 * Checkpoint text cut in two by {@link splitCheckpointText}.
 * @internal
 */
export interface Split {
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

/**
 * The index entry of `channel`, if the snapshot has one (own members only).
 * @internal
 */
export function recordedOf(index: Record<string, RecordedList>, channel: string): RecordedList | undefined {
  return Object.hasOwn(index, channel) ? index[channel] : undefined;
}

/**
 * The length of a list value (an array or a deferred list), or 0.
 * @internal
 */
export function lengthOf(value: unknown): number {
  const length = (value as { length?: unknown }).length;
  return typeof length === 'number' ? length : 0;
}

/**
 * The checkpoint text of a channel that writes its own.
 * @internal
 */
export function ownText(cell: Cell): string {
  const { channel } = cell;
  return (channel.snapshotText as NonNullable<AnyChannel['snapshotText']>).call(channel, cell.value);
}

/**
 * Does the channel write and read its own checkpoint text?
 * @internal
 */
export function writesOwnText(channel: AnyChannel): boolean {
  return typeof channel.snapshotText === 'function' && typeof channel.fromSnapshotText === 'function';
}
