const marker = Symbol.for('@wharf/worker/error');

/** Stable machine-readable codes of {@link WorkerConfigError}. */
export type WorkerConfigErrorCode = 'INVALID_ENV';

/**
 * A worker environment that cannot work: names every variable that is wrong and why.
 *
 * @example
 * ```ts
 * try {
 *   loadWorkerConfig(process.env);
 * } catch (error) {
 *   if (WorkerConfigError.isInstance(error)) console.error(error.message);
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
