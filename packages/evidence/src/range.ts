import type { ByteRange } from './artifact-store.js';
import { EvidenceError } from './evidence-error.js';

/**
 * Checks a byte range: `offset` and `length` must be non-negative safe integers.
 *
 * @example
 * ```ts
 * checkRange({ offset: 0, length: 1024 }); // ok
 * checkRange({ offset: -1, length: 10 }); // throws EvidenceError INVALID_RANGE
 * ```
 */
export function checkRange(range: ByteRange): void {
  for (const field of ['offset', 'length'] as const) {
    const value = range[field];
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new EvidenceError(
        'INVALID_RANGE',
        `range.${field} must be a non-negative integer; got ${String(value)}`,
      );
    }
  }
}
