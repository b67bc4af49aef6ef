import { InvalidOutputEventError } from './errors.js';

/**
 * Label keys that are refused: they name `Object.prototype` machinery, so a parser or a copy
 * would silently drop them (`__proto__`) or confuse them with inherited members.
 *
 * @example
 * ```ts
 * reservedLabelKeys.has('__proto__'); // true
 * ```
 */
export const reservedLabelKeys: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Throws {@link InvalidOutputEventError} naming `field` and the key when a labels object has a
 * reserved own key (see {@link reservedLabelKeys}). Call it on the untouched input: validators
 * that copy the object drop a `__proto__` key without a word.
 *
 * @example
 * ```ts
 * assertLabelKeys(JSON.parse('{"__proto__":"x"}'), 'labels');
 * // throws InvalidOutputEventError: invalid output event: labels has the reserved key "__proto__" …
 * ```
 */
export function assertLabelKeys(labels: unknown, field: string): void {
  if (typeof labels !== 'object' || labels === null) return;
  for (const key of Object.keys(labels)) {
    if (reservedLabelKeys.has(key)) {
      throw new InvalidOutputEventError(
        field,
        `has the reserved key "${key}" (${[...reservedLabelKeys].join(', ')} are refused)`,
      );
    }
  }
}
