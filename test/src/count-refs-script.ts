/**
 * A join's shell script that prints how many refs it was given, whichever way they arrive:
 * `IN_REFS` (comma-separated), or `WHARF_IN_REFS_FILE` (a JSON array) for a wide list.
 *
 * @example
 * ```ts
 * const yaml = `tasks:\n  join: { depends_on: [fan], script: { content: '${countRefsScript}' } }`;
 * ```
 */
export const countRefsScript = [
  'if [ -n "$WHARF_IN_REFS_FILE" ]; then jq length "$WHARF_IN_REFS_FILE";',
  `else printf '%s' "$IN_REFS" | tr ',' '\\n' | grep -c .; fi`,
].join(' ');
