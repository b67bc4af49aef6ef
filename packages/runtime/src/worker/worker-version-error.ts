import { errorGuard, WharfError, type WharfErrorOptions } from '@wharf/common';

const marker = Symbol.for('@wharf/runtime/worker-version-error');

/** Stable machine-readable codes of {@link WorkerVersionError}. */
export type WorkerVersionErrorCode =
  /** A build id without a deployment name, or a deployment name without a build id. */
  | 'INCOMPLETE_VERSION'
  /** A deployment name or build id the Temporal server would refuse (empty, too long, `.`/`:` in a name, `__` prefix). */
  | 'INVALID_VERSION';

/**
 * A worker's deployment version that cannot be used: only half of it is set, or the Temporal
 * server would refuse a part of it. `variables` names the environment variables at fault when it
 * was read from the environment.
 *
 * @example
 * ```ts
 * throw new WorkerVersionError('INCOMPLETE_VERSION', 'WHARF_BUILD_ID needs WHARF_DEPLOYMENT_NAME', ['WHARF_BUILD_ID']);
 * ```
 */
export class WorkerVersionError extends WharfError<WorkerVersionErrorCode> {
  readonly variables: readonly string[];

  constructor(
    code: WorkerVersionErrorCode,
    message: string,
    variables: readonly string[] = [],
    options?: WharfErrorOptions,
  ) {
    super(marker, code, message, options);
    this.name = 'WorkerVersionError';
    this.variables = variables;
  }

  /** True for any WorkerVersionError, whichever realm created it. */
  static override readonly isInstance = errorGuard<WorkerVersionError>(marker);
}
