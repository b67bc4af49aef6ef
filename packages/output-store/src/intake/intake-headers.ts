const intakeHeaderNames = new Set([
  'authorization',
  'content-length',
  'content-type',
  'transfer-encoding',
  'expect',
  'range',
  'idempotency-key',
  'x-wharf-name',
  'x-wharf-labels',
  'x-wharf-ttl-ms',
] as const);

/**
 * Lower-case names of the request headers the intake reads.
 *
 * @example
 * ```ts
 * const name: IntakeHeaderName = 'idempotency-key';
 * ```
 */
export type IntakeHeaderName = typeof intakeHeaderNames extends Set<infer TName> ? TName : never;

/**
 * The request headers the intake reads, by lower-case name.
 *
 * @example
 * ```ts
 * const headers: IntakeHeaders = { authorization: 'Bearer v1.e30.sig', 'content-length': '5' };
 * ```
 */
export type IntakeHeaders = { readonly [TName in IntakeHeaderName]?: string };

/**
 * Picks the headers the intake reads out of node:http's `rawHeaders`, in one pass and without
 * building `request.headers`, read as the Fetch API's `Headers` reads them: a value's leading
 * and trailing whitespace is trimmed, and a header sent more than once is one value, the
 * values joined by `, ` (so two `Authorization` headers make one credential that verifies
 * as neither, and two `Idempotency-Key` headers one key).
 *
 * @example
 * ```ts
 * intakeHeaders(['Host', 'a', 'Idempotency-Key', ' k1 ', 'Accept', '*\/*']); // { 'idempotency-key': 'k1' }
 * intakeHeaders(['Idempotency-Key', 'k1', 'idempotency-key', 'k2']); // { 'idempotency-key': 'k1, k2' }
 * ```
 */
export function intakeHeaders(rawHeaders: readonly string[]): IntakeHeaders {
  const found: { [TName in IntakeHeaderName]?: string } = {};
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    const name = (rawHeaders[index] as string).toLowerCase();
    if (!intakeHeaderNames.has(name as IntakeHeaderName)) continue;
    const key = name as IntakeHeaderName;
    const value = trimHttpWhitespace(rawHeaders[index + 1] as string);
    const earlier = found[key];
    found[key] = earlier === undefined ? value : `${earlier}, ${value}`;
  }
  return found;
}

/** Tab, line feed, carriage return or space: what `Headers` trims from a value's ends. */
function isHttpWhitespace(char: number): boolean {
  return char === 0x20 || char === 0x09 || char === 0x0a || char === 0x0d;
}

function trimHttpWhitespace(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && isHttpWhitespace(value.charCodeAt(start))) start += 1;
  while (end > start && isHttpWhitespace(value.charCodeAt(end - 1))) end -= 1;
  return start === 0 && end === value.length ? value : value.slice(start, end);
}
