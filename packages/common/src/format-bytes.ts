/**
 * A byte count for people, compact: `523 B`, `45KB`, `1.5MB`, `100MB` (powers of 1024, one
 * decimal below ten). The evidence text, the Web UI's progress table and the CLI all write
 * sizes with it.
 *
 * @example
 * ```ts
 * formatBytes(46_080); // '45KB'
 * formatBytes(10_695_475); // '10MB'
 * ```
 */
export function formatBytes(bytes: number): string {
  const units = ['KB', 'MB', 'GB', 'TB'];
  if (bytes < 1024) return `${bytes} B`;
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  const text = value < 10 ? value.toFixed(1).replace(/\.0$/, '') : Math.round(value).toString();
  return `${text}${units[unit]}`;
}
