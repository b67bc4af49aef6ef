/** `Bearer <token>`: the scheme is case-insensitive, one or more spaces before the token. */
const bearer = /^bearer +(\S+)$/i;

/**
 * The token of an `Authorization: Bearer <token>` header value (the scheme in any case, as
 * HTTP has it), or `undefined` for a missing header or any other scheme.
 *
 * @example
 * ```ts
 * parseBearerToken('Bearer abc'); // 'abc'
 * parseBearerToken('Basic abc'); // undefined
 * ```
 */
export function parseBearerToken(authorization: string | undefined): string | undefined {
  if (authorization === undefined) return undefined;
  return bearer.exec(authorization)?.[1];
}
