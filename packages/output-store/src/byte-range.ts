import { OutputRangeError } from './errors.js';
import type { ByteRange } from './types.js';

/**
 * Resolves an optional range against a body size; throws {@link OutputRangeError} when it
 * does not fit. An empty body accepts only the empty range.
 *
 * @example
 * ```ts
 * resolveRange({ start: 2 }, 10); // { start: 2, end: 10 }
 * ```
 */
export function resolveRange(
  range: ByteRange | undefined,
  sizeBytes: number,
): { start: number; end: number } {
  const start = range?.start ?? 0;
  const end = range?.end ?? sizeBytes;
  if (
    !Number.isSafeInteger(start) ||
    !Number.isSafeInteger(end) ||
    start < 0 ||
    end > sizeBytes ||
    start > end
  ) {
    throw new OutputRangeError({ start, end }, sizeBytes);
  }
  return { start, end };
}
