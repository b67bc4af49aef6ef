// Pure: turns the value a `loop: { type: map, over }` resolved to into its items, or into the
// stored list its items are read from.

import { isStoredListValue, storedOutputOf } from '../contracts/stored-list.js';
import { DEFAULT_MAX_ITEMS } from '../contracts/swarm-schema.js';

/** A stored list a map loop reads its items from: a task's output, or a loop's results. */
export interface StoredListSource {
  /** The output (a body of lines or one JSON array) or manifest holding the items. */
  source: string;
  /** A loop's results: only the records of this instance status. */
  status?: 'ok' | 'failed';
}

/**
 * Outcome of {@link expandMapLoop}: the items, the stored list to read them from, or why the
 * value cannot be fanned out over.
 */
export type MapExpansion =
  | { ok: true; items: unknown[] }
  | { ok: true; stored: StoredListSource }
  | { ok: false; reason: string };

/**
 * The items a map loop runs one instance for: a list as it is; a string split into its
 * non-blank lines, trimmed; a task's output value (what `output: †data.x` holds for a task
 * without a loop) or a loop's stored list: the stored list, whose items the workflow never
 * holds (the worker counts them and each instance reads its own). Any other value, or more
 * than `maxItems` items, is refused with a reason that names what was found.
 *
 * @example
 * ```ts
 * expandMapLoop(['a', 'b']); // { ok: true, items: ['a', 'b'] }
 * expandMapLoop('a\nb\n'); // { ok: true, items: ['a', 'b'] }
 * expandMapLoop({ outId: 'out_1', outIds: ['out_1'], status: 'ok', bytes: 9, exitCode: 0, preview: '' });
 * // { ok: true, stored: { source: 'out_1' } }
 * expandMapLoop(42); // { ok: false, reason: 'loop.over is a number (42), not a list' }
 * ```
 */
export function expandMapLoop(value: unknown, maxItems: number = DEFAULT_MAX_ITEMS): MapExpansion {
  let items: unknown[];
  if (Array.isArray(value)) items = value;
  else if (typeof value === 'string')
    items = value
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '');
  else if (isStoredListValue(value)) {
    if (value.count > maxItems)
      return { ok: false, reason: `loop.over has ${value.count} items, more than max_items ${maxItems}` };
    return { ok: true, stored: { source: value.$manifest, status: value.status } };
  } else {
    const stored = storedOutputOf(value);
    if (stored === null)
      return { ok: false, reason: 'loop.over is the output of a task that stored nothing' };
    if (stored !== undefined) return { ok: true, stored: { source: stored } };
    return { ok: false, reason: `loop.over is ${describe(value)}, not a list` };
  }
  if (items.length > maxItems)
    return { ok: false, reason: `loop.over has ${items.length} items, more than max_items ${maxItems}` };
  return { ok: true, items };
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value} (${JSON.stringify(value)})`;
}
