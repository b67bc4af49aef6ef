// Pure: used by the definition checks and by the workflow's planner.

/**
 * Whether two `†` paths overlap: one is a prefix of the other, so writing either changes
 * what the other reads.
 *
 * @example
 * ```ts
 * pathsOverlap(['report'], ['report', 'title']); // true
 * pathsOverlap(['report', 'title'], ['report', 'body']); // false
 * ```
 */
export function pathsOverlap(left: readonly string[], right: readonly string[]): boolean {
  const length = Math.min(left.length, right.length);
  for (let index = 0; index < length; index++) if (left[index] !== right[index]) return false;
  return true;
}
