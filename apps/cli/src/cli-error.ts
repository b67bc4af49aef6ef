const marker = Symbol.for('@wharf/cli/error');

/** Stable machine-readable codes of {@link CliError}. */
export type CliErrorCode = 'USAGE';

/**
 * Base error of `@wharf/cli`. Every error the package throws is one of these,
 * with a stable {@link CliError.code}.
 *
 * Use {@link CliError.isInstance} rather than `instanceof`: it also recognises errors
 * created in another realm (the Temporal workflow sandbox, a worker thread).
 *
 * @example
 * ```ts
 * try {
 *   run();
 * } catch (error) {
 *   if (CliError.isInstance(error) && error.code === 'USAGE') {
 *     console.error(error.message);
 *   }
 * }
 * ```
 */
export class CliError extends Error {
  readonly code: CliErrorCode;
  constructor(code: CliErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CliError';
    this.code = code;
    Object.defineProperty(this, marker, { value: true });
  }

  /** True for any CliError, whichever realm created it. */
  static isInstance(value: unknown): value is CliError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[marker] === true;
  }
}
