import { errorGuard, WharfError, type WharfErrorOptions } from '@wharf/common';

const marker = Symbol.for('@wharf/cli/cluster-error');

/** Stable machine-readable codes of {@link ClusterError}. */
export type ClusterErrorCode =
  /** A binary of the topology is not built or not found (`.ci/toolchain.sh` builds it). */
  | 'NOT_BUILT'
  /** A port the topology listens on is taken by another process. */
  | 'PORT_TAKEN'
  /** A process exited or did not answer in time while starting; its log is named. */
  | 'START_FAILED'
  /** A one-shot job (schemas, namespace, database, bucket) failed. */
  | 'JOB_FAILED'
  /** No process of that name in the topology. */
  | 'UNKNOWN_PROCESS'
  /** The cluster directory holds no cluster (`up` was never run there). */
  | 'NO_CLUSTER';

/**
 * An error of the native cluster (`wharf cluster`): what failed and where to look.
 *
 * @example
 * ```ts
 * throw new ClusterError('PORT_TAKEN', 'port 7233 (temporal frontend) is taken');
 * ```
 */
export class ClusterError extends WharfError<ClusterErrorCode> {
  constructor(code: ClusterErrorCode, message: string, options?: WharfErrorOptions) {
    super(marker, code, message, options);
    this.name = 'ClusterError';
  }

  /** True for any ClusterError, whichever realm created it. */
  static override readonly isInstance = errorGuard<ClusterError>(marker);
}
