import { errorGuard, WharfError, type WharfErrorOptions } from '@wharf/common';

const marker = Symbol.for('@wharf/cli/error');

/** Stable machine-readable codes of {@link CliError}. */
export type CliErrorCode =
  | 'USAGE'
  | 'INVALID_DEFINITION'
  | 'NOT_FOUND'
  | 'UNREACHABLE'
  | 'NO_WORKER'
  | 'SWARM_FAILED'
  | 'INTERRUPTED'
  | 'TERMINATED'
  | 'TIMEOUT';

/** Process exit code for each {@link CliErrorCode}. */
export const exitCodes: Record<CliErrorCode, number> = {
  SWARM_FAILED: 1,
  USAGE: 2,
  INVALID_DEFINITION: 2,
  NOT_FOUND: 3,
  UNREACHABLE: 4,
  NO_WORKER: 5,
  // A temporary failure worth retrying (sysexits' EX_TEMPFAIL): the intake cut an upload as too slow.
  TIMEOUT: 75,
  // Ended by Ctrl-C (SIGINT) or SIGTERM: 128 + the signal's number, as a shell reports it.
  INTERRUPTED: 130,
  TERMINATED: 143,
};

/**
 * An error the `wharf` command reports to the user: a message they can act on and an
 * exit code (1 swarm failed, 2 bad usage or definition, 3 not found, 4 server unreachable,
 * 5 no worker serves the run, 75 `wharf emit`'s upload was cut as too slow, 130/143 stopped by
 * SIGINT/SIGTERM).
 *
 * @example
 * ```ts
 * throw new CliError('USAGE', '--input expects key=value, got "x"');
 * ```
 */
export class CliError extends WharfError<CliErrorCode> {
  constructor(code: CliErrorCode, message: string, options?: WharfErrorOptions) {
    super(marker, code, message, options);
    this.name = 'CliError';
  }

  /** The process exit code for this error. */
  get exitCode(): number {
    return exitCodes[this.code];
  }

  /** True for any CliError, whichever realm created it. */
  static override readonly isInstance = errorGuard<CliError>(marker);
}
