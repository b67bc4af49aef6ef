/** Carried by every {@link WharfError}, whichever package made it. */
const anyWharfError = Symbol.for('@wharf/error');

/**
 * Options of a {@link WharfError}: the error that caused it, if any.
 *
 * @example
 * ```ts
 * const options: WharfErrorOptions = { cause: new Error('disk full') };
 * ```
 */
export interface WharfErrorOptions {
  cause?: unknown;
}

/**
 * Tells whether a value is an error of one kind, whichever realm created it.
 *
 * @example
 * ```ts
 * const isMine: ErrorGuard<MyPackageError> = errorGuard(marker);
 * ```
 */
export type ErrorGuard<E> = (value: unknown) => value is E;

/**
 * The base of every Wharf package's base error: a stable string `code` from the package's own
 * union, an optional `cause`, and a mark that survives realms. Errors cross the Temporal
 * workflow sandbox and worker threads, where `instanceof` fails, so each error carries
 * `Symbol.for` markers instead: the one of its package (given to this constructor) and the
 * one every Wharf error carries. A package's base sets its own `name` and declares its
 * `isInstance` with {@link errorGuard}; its subclasses narrow that by code with
 * {@link codeGuard}.
 *
 * @example
 * ```ts
 * type ParserErrorCode = 'INVALID_TOKEN' | 'TOO_DEEP';
 * const marker = Symbol.for('@wharf/parser/error');
 *
 * class ParserError extends WharfError<ParserErrorCode> {
 *   constructor(code: ParserErrorCode, message: string, options?: WharfErrorOptions) {
 *     super(marker, code, message, options);
 *     this.name = 'ParserError';
 *   }
 *   static override readonly isInstance = errorGuard<ParserError>(marker);
 * }
 *
 * class TooDeepError extends ParserError {
 *   constructor(depth: number) {
 *     super('TOO_DEEP', `nested ${depth} levels deep`);
 *     this.name = 'TooDeepError';
 *   }
 *   static override readonly isInstance = codeGuard<TooDeepError>(ParserError, 'TOO_DEEP');
 * }
 *
 * const error: unknown = new TooDeepError(70);
 * ParserError.isInstance(error); // true
 * TooDeepError.isInstance(error); // true
 * WharfError.isInstance(error); // true, as for any Wharf package's error
 * ```
 */
export abstract class WharfError<Code extends string = string> extends Error {
  /** Stable, machine-readable: what went wrong, from the package's own union. */
  readonly code: Code;

  /**
   * @param marker - The package's marker, `Symbol.for('@wharf/<package>/error')`: one per
   *   package, so that one package's `isInstance` does not take another's errors.
   */
  protected constructor(marker: symbol, code: Code, message: string, options?: WharfErrorOptions) {
    super(message, options);
    this.code = code;
    Object.defineProperty(this, anyWharfError, { value: true });
    Object.defineProperty(this, marker, { value: true });
  }

  /** True for an error of any Wharf package, whichever realm created it. */
  static readonly isInstance: ErrorGuard<WharfError> = errorGuard(anyWharfError);
}

/**
 * The `isInstance` of a package's base error: true for a value that carries `marker`, that
 * is, for an error of that package made in any realm.
 *
 * @example
 * ```ts
 * const marker = Symbol.for('@wharf/parser/error');
 * const isParserError = errorGuard<ParserError>(marker);
 * isParserError(new ParserError('TOO_DEEP', 'nested 70 levels deep')); // true
 * isParserError(new Error('other')); // false
 * ```
 */
export function errorGuard<E extends WharfError>(marker: symbol): ErrorGuard<E> {
  return (value: unknown): value is E =>
    typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[marker] === true;
}

/**
 * The `isInstance` of a subclass told apart by its code: true for an error that `base` (the
 * package's base error) recognises and whose `code` is one of `codes`. Errors are told apart
 * by code rather than by class, so an error rebuilt from its code in another realm (or from an
 * HTTP answer) still counts.
 *
 * @example
 * ```ts
 * const isTooDeep = codeGuard<TooDeepError>(ParserError, 'TOO_DEEP');
 * isTooDeep(new TooDeepError(70)); // true
 * isTooDeep(new ParserError('INVALID_TOKEN', 'unexpected "}"')); // false
 * ```
 */
export function codeGuard<E extends WharfError>(
  base: { readonly isInstance: ErrorGuard<WharfError> },
  ...codes: readonly E['code'][]
): ErrorGuard<E> {
  const isBase = base.isInstance;
  return (value: unknown): value is E => isBase(value) && (codes as readonly string[]).includes(value.code);
}
