import { errorGuard, WharfError } from '@wharf/common';

const marker = Symbol.for('@wharf/worker/error');

/** Stable machine-readable codes of {@link WorkerConfigError}. */
export type WorkerConfigErrorCode =
  | 'INVALID_ENV'
  /** An MCP server of `WHARF_MCP_SERVERS` could not be started or reached. */
  | 'MCP_UNAVAILABLE'
  /** `WHARF_SANDBOX=required` and no sandbox can be made here (or a `WHARF_SANDBOX*` value is bad). */
  | 'SANDBOX_UNAVAILABLE'
  /** The output store or its blob store (`WHARF_STORE`, `WHARF_BLOBS`) cannot be used. */
  | 'DATA_PLANE_UNAVAILABLE';

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
export class WorkerConfigError extends WharfError<WorkerConfigErrorCode> {
  /** The variables that are wrong, e.g. `['WHARF_INTAKE_MAX_BODY_BYTES']`. */
  readonly variables: readonly string[];

  constructor(
    code: WorkerConfigErrorCode,
    message: string,
    options?: { cause?: unknown; variables?: readonly string[] },
  ) {
    super(marker, code, message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'WorkerConfigError';
    this.variables = options?.variables ?? [];
  }

  /** True for any WorkerConfigError, whichever realm created it. */
  static override readonly isInstance = errorGuard<WorkerConfigError>(marker);
}
