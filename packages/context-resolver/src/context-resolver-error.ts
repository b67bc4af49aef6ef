const marker = Symbol.for('@wharf/context-resolver/error');

/** Stable machine-readable codes of {@link ContextResolverError}. */
export type ContextResolverErrorCode = 'INVALID_PATH' | 'INVALID_EXPRESSION';

/**
 * Base error of `@wharf/context-resolver`. Every error the package throws is one of these,
 * with a stable {@link ContextResolverError.code}.
 *
 * Use {@link ContextResolverError.isInstance} rather than `instanceof`: it also recognises errors
 * created in another realm (the Temporal workflow sandbox, a worker thread).
 *
 * @example
 * ```ts
 * try {
 *   run();
 * } catch (error) {
 *   if (ContextResolverError.isInstance(error) && error.code === 'INVALID_PATH') {
 *     console.error(error.message);
 *   }
 * }
 * ```
 */
export class ContextResolverError extends Error {
  readonly code: ContextResolverErrorCode;
  constructor(code: ContextResolverErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ContextResolverError';
    this.code = code;
    Object.defineProperty(this, marker, { value: true });
  }

  /** True for any ContextResolverError, whichever realm created it. */
  static isInstance(value: unknown): value is ContextResolverError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[marker] === true;
  }
}
