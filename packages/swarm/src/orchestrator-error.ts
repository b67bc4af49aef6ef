import { errorGuard, WharfError, type WharfErrorOptions } from '@wharf/common';

const marker = Symbol.for('@wharf/orchestrator/error');

/** Stable machine-readable codes of {@link WharfOrchestratorError}. */
export type WharfOrchestratorErrorCode =
  | 'INVALID_DEFINITION'
  /** A subagent's stored definition ref that is missing, not a definition, or outside its run's owner and lineage. */
  | 'DEFINITION_REF'
  | 'DEFINITION_TOO_LARGE'
  | 'TEMPORAL_CLI_NOT_FOUND'
  | 'DEV_SERVER_FAILED'
  | 'UNKNOWN_PROVIDER'
  | 'INVALID_MODEL_ID'
  | 'MISSING_MODEL_KEY'
  | 'INVALID_SCRIPTED_MODEL'
  | 'INVALID_MODEL_OVERRIDE'
  | 'PAYLOAD_UNAVAILABLE'
  | 'INVALID_REQUEST'
  | 'MISSING_INPUT'
  | 'INVALID_CONDITION'
  | 'UNKNOWN_TOOL'
  | 'PATH_OUTSIDE_WORKDIR'
  | 'NOT_A_REGULAR_FILE'
  | 'FILE_NOT_FOUND'
  | 'INVALID_ENV'
  /** The worker must sandbox its processes (`WHARF_SANDBOX=required`) and cannot. */
  | 'SANDBOX_UNAVAILABLE'
  /** A task's `sandbox` asks for more than the worker's ceiling allows. */
  | 'SANDBOX_NOT_ALLOWED'
  /** A Temporal connection or tracing setting (a variable, a config file) that cannot work. */
  | 'INVALID_CONFIG';

/**
 * Base error of `@wharf/orchestrator`. Every error the package throws is one of these,
 * with a stable {@link WharfOrchestratorError.code}.
 *
 * Use {@link WharfOrchestratorError.isInstance} rather than `instanceof`: it also recognises errors
 * created in another realm (the Temporal workflow sandbox, a worker thread).
 *
 * @example
 * ```ts
 * try {
 *   run();
 * } catch (error) {
 *   if (WharfOrchestratorError.isInstance(error) && error.code === 'INVALID_DEFINITION') {
 *     console.error(error.message);
 *   }
 * }
 * ```
 */
export class WharfOrchestratorError extends WharfError<WharfOrchestratorErrorCode> {
  constructor(code: WharfOrchestratorErrorCode, message: string, options?: WharfErrorOptions) {
    super(marker, code, message, options);
    this.name = 'WharfOrchestratorError';
  }

  /** True for any WharfOrchestratorError, whichever realm created it. */
  static override readonly isInstance = errorGuard<WharfOrchestratorError>(marker);
}
