// Pure: turns the value a `loop: { type: map, over }` resolved to into its items.

/** Most items one map loop fans out over (the same bound as `loop.count`). */
export const MAX_MAP_ITEMS = 10_000;

/** Outcome of {@link expandMapLoop}: the items, or why the value cannot be fanned out over. */
export type MapExpansion = { ok: true; items: unknown[] } | { ok: false; reason: string };

/**
 * The items a map loop runs one instance for: a list as it is; a string split into its
 * non-blank lines, trimmed (so a script's stdout `preview` can list items one per line). Any
 * other value, or more than {@link MAX_MAP_ITEMS} items, is refused with a reason that names
 * what was found.
 *
 * @example
 * ```ts
 * expandMapLoop(['a', 'b']); // { ok: true, items: ['a', 'b'] }
 * expandMapLoop('a\nb\n'); // { ok: true, items: ['a', 'b'] }
 * expandMapLoop({ a: 1 }); // { ok: false, reason: 'loop.over is an object, not a list' }
 * ```
 */
export function expandMapLoop(value: unknown): MapExpansion {
  let items: unknown[];
  if (Array.isArray(value)) items = value;
  else if (typeof value === 'string')
    items = value
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '');
  else return { ok: false, reason: `loop.over is ${describe(value)}, not a list` };
  if (items.length > MAX_MAP_ITEMS)
    return { ok: false, reason: `loop.over has ${items.length} items, more than ${MAX_MAP_ITEMS}` };
  return { ok: true, items };
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value} (${JSON.stringify(value)})`;
}
