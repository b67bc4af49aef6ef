const marker = Symbol.for('@wharf/worker/error');

/** Stable machine-readable codes of {@link WorkerConfigError}. */
export type WorkerConfigErrorCode = 'INVALID_ENV';

/**
 * Base error of `@wharf/worker`. Every error the package throws is one of these,
 * with a stable {@link WorkerConfigError.code}.
 *
 * Use {@link WorkerConfigError.isInstance} rather than `instanceof`: it also recognises errors
 * created in another realm (the Temporal workflow sandbox, a worker thread).
 *
 * @example
 * ```ts
 * try {
 *   run();
 * } catch (error) {
 *   if (WorkerConfigError.isInstance(error) && error.code === 'INVALID_ENV') {
 *     console.error(error.message);
 *   }
 * }
 * ```
 */
export class WorkerConfigError extends Error {
  readonly code: WorkerConfigErrorCode;
  constructor(code: WorkerConfigErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'WorkerConfigError';
    this.code = code;
    Object.defineProperty(this, marker, { value: true });
  }

  /** True for any WorkerConfigError, whichever realm created it. */
  static isInstance(value: unknown): value is WorkerConfigError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[marker] === true;
  }
}
