const emitHeaderNames = new Set([
  'host',
  'authorization',
  'content-length',
  'content-type',
  'transfer-encoding',
  'idempotency-key',
  'x-wharf-name',
  'x-wharf-labels',
  'x-wharf-ttl-ms',
] as const);

/**
 * Lower-case names of the headers the EMIT fast path reads.
 *
 * @example
 * ```ts
 * const name: EmitHeaderName = 'idempotency-key';
 * ```
 */
export type EmitHeaderName = typeof emitHeaderNames extends Set<infer TName> ? TName : never;

/**
 * The headers of a request the EMIT fast path reads, by lower-case name, each as sent.
 *
 * @example
 * ```ts
 * const headers: EmitRequestHeaders = { authorization: 'Bearer v1.e30.sig', 'content-length': '5' };
 * ```
 */
export type EmitRequestHeaders = { readonly [TName in EmitHeaderName]?: string };

/**
 * Picks the headers the EMIT fast path reads out of node:http's `rawHeaders`, in one pass and
 * without building `request.headers`. Answers `undefined` for a request whose headers the fast
 * path would have to merge or trim to read as the Fetch API's `Headers` does (one of these
 * headers sent twice, or a value starting or ending with whitespace): such a request goes to
 * the Hono app, which reads it through `Headers`, so both paths always see the same values.
 *
 * @example
 * ```ts
 * emitRequestHeaders(['Host', 'a', 'Idempotency-Key', 'k1', 'Accept', '*\/*']); // { host: 'a', 'idempotency-key': 'k1' }
 * emitRequestHeaders(['Idempotency-Key', 'k1', 'idempotency-key', 'k2']); // undefined
 * ```
 */
export function emitRequestHeaders(rawHeaders: readonly string[]): EmitRequestHeaders | undefined {
  const found: { [TName in EmitHeaderName]?: string } = {};
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    const name = (rawHeaders[index] as string).toLowerCase();
    if (!emitHeaderNames.has(name as EmitHeaderName)) continue;
    const key = name as EmitHeaderName;
    const value = rawHeaders[index + 1] as string;
    if (found[key] !== undefined) return undefined;
    if (
      value.length > 0 &&
      (isHttpWhitespace(value.charCodeAt(0)) || isHttpWhitespace(value.charCodeAt(value.length - 1)))
    )
      return undefined;
    found[key] = value;
  }
  return found;
}

/** Tab, line feed, carriage return or space: what `Headers` trims from a value's ends. */
function isHttpWhitespace(char: number): boolean {
  return char === 0x20 || char === 0x09 || char === 0x0a || char === 0x0d;
}
