import { errorGuard, WharfError, type WharfErrorOptions } from '@wharf/common';

const marker = Symbol.for('@wharf/output-store/error');

/**
 * Stable machine-readable codes of {@link OutputStoreError}.
 *
 * @example
 * ```ts
 * const code: OutputStoreErrorCode = 'IDEMPOTENCY_CONFLICT';
 * ```
 */
export type OutputStoreErrorCode =
  | 'NOT_FOUND'
  | 'INVALID_EVENT'
  | 'FORBIDDEN'
  | 'UNAUTHORIZED'
  | 'TOO_LARGE'
  | 'IDEMPOTENCY_CONFLICT'
  | 'INVALID_RANGE'
  | 'PATH_REJECTED'
  | 'STORAGE_FAILURE'
  | 'UNAVAILABLE'
  | 'TOO_MANY_REQUESTS'
  | 'TIMEOUT'
  | 'BLOB_NOT_FOUND'
  | 'INVALID_OPTION'
  | 'UNTRUSTED_LIST'
  | 'LIST_LIMIT';

/**
 * Base error of `@wharf/output-store`. Every error the package throws is one of these,
 * with a stable {@link OutputStoreError.code}.
 *
 * Use {@link OutputStoreError.isInstance} rather than `instanceof`: it also recognises errors
 * created in another realm (the Temporal workflow sandbox, a worker thread).
 *
 * @example
 * ```ts
 * try {
 *   run();
 * } catch (error) {
 *   if (OutputStoreError.isInstance(error) && error.code === 'NOT_FOUND') {
 *     console.error(error.message);
 *   }
 * }
 * ```
 */
export class OutputStoreError extends WharfError<OutputStoreErrorCode> {
  constructor(code: OutputStoreErrorCode, message: string, options?: WharfErrorOptions) {
    super(marker, code, message, options);
    this.name = 'OutputStoreError';
  }

  /** True for any OutputStoreError, whichever realm created it. */
  static override readonly isInstance = errorGuard<OutputStoreError>(marker);
}
