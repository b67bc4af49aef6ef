import type { ByteRange } from './artifact-store.js';
import { EvidenceError } from './evidence-error.js';

/**
 * Checks a byte range and resolves it against an artifact of `size` bytes: `start` and `end`,
 * when given, must be non-negative safe integers with `end >= start`; both are clamped to
 * `size`.
 *
 * @example
 * ```ts
 * rangeWithin({ start: 0, end: 1024 }, 100); // { start: 0, end: 100 }
 * rangeWithin({ start: -1 }, 100); // throws EvidenceError INVALID_RANGE
 * ```
 */
export function rangeWithin(range: ByteRange | undefined, size: number): { start: number; end: number } {
  if (range !== undefined) checkRange(range);
  const start = Math.min(range?.start ?? 0, size);
  return { start, end: Math.max(start, Math.min(range?.end ?? size, size)) };
}

/**
 * Checks a byte range: `start` and `end`, when given, must be non-negative safe integers and
 * `end` must not come before `start`.
 *
 * @example
 * ```ts
 * checkRange({ start: 0, end: 1024 }); // ok
 * checkRange({ start: 10, end: 5 }); // throws EvidenceError INVALID_RANGE
 * ```
 */
export function checkRange(range: ByteRange): void {
  for (const field of ['start', 'end'] as const) {
    const value = range[field];
    if (value !== undefined && (!Number.isSafeInteger(value) || value < 0)) {
      throw new EvidenceError(
        'INVALID_RANGE',
        `range.${field} must be a non-negative integer; got ${String(value)}`,
      );
    }
  }
  if (range.start !== undefined && range.end !== undefined && range.end < range.start) {
    throw new EvidenceError(
      'INVALID_RANGE',
      `range.end ${range.end} comes before range.start ${range.start}`,
    );
  }
}
