import { CliError } from './cli-error.js';

/**
 * Fits a `--range` to a body of `sizeBytes`, as HTTP does with a byte range: an end past the
 * body (or none) stops at its end, so `0-1500` of 600 bytes is those 600 bytes. A range that
 * starts past the end has no byte to give: a usage error naming the output and its size.
 *
 * @example
 * ```ts
 * clampRange({ start: 0, end: 1500 }, 600, 'out_1'); // { start: 0, end: 600 }
 * clampRange({ start: 700 }, 600, 'out_1'); // throws CliError USAGE
 * ```
 */
export function clampRange(
  range: { start?: number; end?: number },
  sizeBytes: number,
  outId: string,
): { start: number; end: number } {
  const start = range.start ?? 0;
  // Byte 0 of an empty body: nothing to give, and nothing asked for that is missing.
  if (start > 0 && start >= sizeBytes) {
    throw new CliError(
      'USAGE',
      `--range starts at byte ${start}, past the end of ${outId} (${sizeBytes} B; bytes 0-${sizeBytes} exist)`,
    );
  }
  return { start, end: Math.min(range.end ?? sizeBytes, sizeBytes) };
}
