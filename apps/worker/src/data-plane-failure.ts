import { OutputStoreError, StoreConnectionError } from '@wharf/output-store';
import { WorkerConfigError } from './worker-config-error.js';

/**
 * The {@link WorkerConfigError} (`DATA_PLANE_UNAVAILABLE`) for an output store or blob store
 * that failed when the worker opened or checked it, naming the variables to look at and the
 * store's own message (the server, never a password); `undefined` for any other error.
 *
 * @example
 * ```ts
 * throw dataPlaneFailure(error) ?? error;
 * ```
 */
export function dataPlaneFailure(error: unknown): WorkerConfigError | undefined {
  if (!OutputStoreError.isInstance(error)) return undefined;
  const s3 = StoreConnectionError.isInstance(error) && error.server.startsWith('s3://');
  const blobs = s3 || /\bs3:\/\/|blob|WHARF_BLOBS/.test(error.message);
  const variables = blobs
    ? ['WHARF_BLOBS', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY']
    : ['WHARF_STORE', 'WHARF_BLOBS'];
  return new WorkerConfigError(
    'DATA_PLANE_UNAVAILABLE',
    `the data plane cannot be used (check ${variables.join(', ')}): ${error.message}`,
    { cause: error, variables },
  );
}
