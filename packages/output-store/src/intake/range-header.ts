/**
 * Outcome of {@link parseRangeHeader}.
 *
 * @example
 * ```ts
 * const range: RangeRequest = { kind: 'partial', start: 0, end: 100 };
 * ```
 */
export type RangeRequest =
  | { readonly kind: 'full' }
  | { readonly kind: 'partial'; readonly start: number; readonly end: number }
  | { readonly kind: 'unsatisfiable' };

/**
 * Interprets an HTTP `Range` header against a body size. A single `bytes=` range is served
 * (`end` exclusive in the result); absent, malformed or multi-range headers mean the full body,
 * as RFC 9110 allows.
 *
 * @example
 * ```ts
 * parseRangeHeader('bytes=0-99', 1000); // { kind: 'partial', start: 0, end: 100 }
 * parseRangeHeader('bytes=-10', 1000); // { kind: 'partial', start: 990, end: 1000 }
 * ```
 */
export function parseRangeHeader(header: string | undefined, sizeBytes: number): RangeRequest {
  if (header === undefined) return { kind: 'full' };
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match) return { kind: 'full' };
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return { kind: 'full' };
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0 || sizeBytes === 0) return { kind: 'unsatisfiable' };
    return { kind: 'partial', start: Math.max(0, sizeBytes - suffix), end: sizeBytes };
  }
  const start = Number(first);
  if (start >= sizeBytes) return { kind: 'unsatisfiable' };
  const end = last === '' ? sizeBytes : Math.min(Number(last) + 1, sizeBytes);
  if (end <= start) return { kind: 'unsatisfiable' };
  return { kind: 'partial', start, end };
}
