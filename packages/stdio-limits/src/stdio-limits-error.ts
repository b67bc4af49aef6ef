import { errorGuard, WharfError } from '@wharf/common';

const marker = Symbol.for('@wharf/stdio-limits/error');

/** Stable machine-readable codes of {@link StdioLimitsError}. */
export type StdioLimitsErrorCode =
  | 'INVALID_LIMITS'
  | 'INVALID_WORKFLOW'
  | 'INVALID_YAML'
  | 'INVALID_ARGUMENT'
  | 'SPAWN_FAILED'
  | 'SPAWN_REQUEST_TOO_LARGE'
  | 'SPAWN_HELPER_DIED'
  | 'CAPTURE_FAILED';

/** One problem found in a configuration: where (dotted path) and why. */
export interface StdioLimitsIssue {
  path: string;
  message: string;
}

/**
 * Base error of `@wharf/stdio-limits`. Every error the package throws is one of these,
 * with a stable {@link StdioLimitsError.code}.
 *
 * Use {@link StdioLimitsError.isInstance} rather than `instanceof`: it also recognises errors
 * created in another realm (the Temporal workflow sandbox, a worker thread).
 *
 * @example
 * ```ts
 * try {
 *   run();
 * } catch (error) {
 *   if (StdioLimitsError.isInstance(error) && error.code === 'INVALID_LIMITS') {
 *     console.error(error.message);
 *   }
 * }
 * ```
 */
export class StdioLimitsError extends WharfError<StdioLimitsErrorCode> {
  /** Each problem with its field path, for configuration errors; empty otherwise. */
  readonly issues: readonly StdioLimitsIssue[];
  constructor(
    code: StdioLimitsErrorCode,
    message: string,
    options?: { cause?: unknown; issues?: readonly StdioLimitsIssue[] },
  ) {
    super(marker, code, message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'StdioLimitsError';
    this.issues = options?.issues ?? [];
  }

  /** True for any StdioLimitsError, whichever realm created it. */
  static override readonly isInstance = errorGuard<StdioLimitsError>(marker);
}
