import { errorGuard, WharfError, type WharfErrorOptions } from '@wharf/common';

const marker = Symbol.for('@wharf/evidence/error');

/**
 * Stable machine-readable codes of {@link EvidenceError}.
 *
 * @example
 * ```ts
 * const code: EvidenceErrorCode = 'OWNERSHIP_CONFLICT';
 * ```
 */
export type EvidenceErrorCode =
  | 'ARTIFACT_NOT_FOUND'
  | 'INVALID_ARTIFACT'
  | 'INVALID_ID'
  | 'INVALID_RANGE'
  | 'OWNERSHIP_CONFLICT'
  | 'CORRUPT_ARTIFACT'
  | 'INVALID_OPTIONS'
  | 'PATH_NOT_ALLOWED';

/**
 * Base error of `@wharf/evidence`. Every error the package throws is one of these,
 * with a stable {@link EvidenceError.code}.
 *
 * Use {@link EvidenceError.isInstance} rather than `instanceof`: it also recognises errors
 * created in another realm (the Temporal workflow sandbox, a worker thread).
 *
 * @example
 * ```ts
 * try {
 *   run();
 * } catch (error) {
 *   if (EvidenceError.isInstance(error) && error.code === 'ARTIFACT_NOT_FOUND') {
 *     console.error(error.message);
 *   }
 * }
 * ```
 */
export class EvidenceError extends WharfError<EvidenceErrorCode> {
  constructor(code: EvidenceErrorCode, message: string, options?: WharfErrorOptions) {
    super(marker, code, message, options);
    this.name = 'EvidenceError';
  }

  /** True for any EvidenceError, whichever realm created it. */
  static override readonly isInstance = errorGuard<EvidenceError>(marker);
}
