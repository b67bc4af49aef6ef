import {
  BlobStoreClaimedError,
  InvalidStoreOptionError,
  type OutputStoreError,
  StoreConnectionError,
} from '@wharf/output-store';
import { BackendMissingError, InvalidStoreUrlError } from '@wharf/output-store/config';
import { CliError } from './cli-error.js';

/**
 * The {@link CliError} for a data plane that cannot be used, or `undefined` for any other
 * error: a bad `WHARF_STORE`/`WHARF_BLOBS`, a missing backend package, another store's blob
 * store, wrong credentials or a refused option exit 2 (the configuration is wrong); a missing
 * database or bucket exits 3 (not found); a server that does not answer exits 4 (unreachable).
 * The message names the server (never its password) and says what to check.
 *
 * @example
 * ```ts
 * throw dataPlaneCliError(error) ?? error;
 * ```
 */
export function dataPlaneCliError(error: unknown): CliError | undefined {
  if (InvalidStoreUrlError.isInstance(error) || BackendMissingError.isInstance(error))
    return new CliError('USAGE', error.message, { cause: error });
  if (BlobStoreClaimedError.isInstance(error)) return new CliError('USAGE', error.message, { cause: error });
  if (InvalidStoreOptionError.isInstance(error))
    return new CliError('USAGE', error.message, { cause: error });
  if (!StoreConnectionError.isInstance(error)) return undefined;
  const check = hint(error);
  switch (error.problem) {
    case 'credentials':
      return new CliError('USAGE', `${error.message}; ${check}`, { cause: error });
    case 'missing':
      return new CliError('NOT_FOUND', `${error.message}; ${check}`, { cause: error });
    default:
      return new CliError('UNREACHABLE', `${error.message}; ${check}`, { cause: error });
  }
}

function hint(error: StoreConnectionError & OutputStoreError): string {
  const s3 = error.server.startsWith('s3://');
  switch (error.problem) {
    case 'credentials':
      return s3
        ? 'check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY'
        : 'check the user and password in WHARF_STORE';
    case 'missing':
      return s3 ? 'create the bucket, or fix WHARF_BLOBS' : 'create the database, or fix WHARF_STORE';
    default:
      return s3 ? 'check the endpoint in WHARF_BLOBS' : 'check the host and port in WHARF_STORE';
  }
}
