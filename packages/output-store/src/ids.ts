import { randomBytes } from 'node:crypto';

const outIdPattern = /^out_[A-Za-z0-9_-]{16}$/;

/**
 * A fresh, unguessable output id: `out_` and 16 base64url characters (96 random bits).
 *
 * @example
 * ```ts
 * const outId = newOutId(); // 'out_3fZ8kQ1xP0aLm2Vb'
 * ```
 */
export function newOutId(): string {
  return `out_${randomBytes(12).toString('base64url')}`;
}

/**
 * True when `value` has the shape of an output id.
 *
 * @example
 * ```ts
 * isOutId('out_3fZ8kQ1xP0aLm2Vb'); // true
 * isOutId('../etc/passwd'); // false
 * ```
 */
export function isOutId(value: string): boolean {
  return outIdPattern.test(value);
}
