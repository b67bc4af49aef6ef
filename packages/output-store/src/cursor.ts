import { InvalidOutputEventError } from './errors.js';

/**
 * Encodes a store position as an opaque page cursor.
 *
 * @example
 * ```ts
 * decodeCursor(encodeCursor(42)); // 42
 * ```
 */
export function encodeCursor(sequence: number): string {
  return Buffer.from(`s:${sequence}`, 'utf8').toString('base64url');
}

/**
 * Decodes a page cursor; throws {@link InvalidOutputEventError} on a forged or damaged one.
 *
 * @example
 * ```ts
 * decodeCursor('czo0Mg'); // 42
 * ```
 */
export function decodeCursor(cursor: string): number {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const match = /^s:(\d{1,15})$/.exec(text);
  if (!match?.[1]) throw new InvalidOutputEventError('cursor', 'is not a cursor returned by list');
  return Number(match[1]);
}

/**
 * Clamps a page size to 1..1000 (default 100); throws on a non-integer.
 *
 * @example
 * ```ts
 * pageLimit(undefined); // 100
 * ```
 */
export function pageLimit(limit: number | undefined): number {
  if (limit === undefined) return 100;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > 1000) {
    throw new InvalidOutputEventError('limit', 'must be an integer between 1 and 1000');
  }
  return limit;
}
