import { BackendMissingError, InvalidStoreUrlError } from './config-errors.js';

/**
 * Loads an optional backend module. When a package behind it (`pg`, the AWS SDK) is not
 * installed, the import's failure becomes a {@link BackendMissingError} naming what to install;
 * when the backend module itself is missing from this build, an {@link InvalidStoreUrlError}
 * on the scheme. Other failures pass through.
 *
 * @example
 * ```ts
 * const { S3BlobStore } = await importBackend(() => import('../s3/s3-blob-store.js'), ['@aws-sdk/client-s3'], 's3://');
 * ```
 */
export async function importBackend<T>(
  load: () => Promise<T>,
  packages: readonly string[],
  scheme: string,
  variable = 'WHARF_STORE',
): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const message = String((error as { message?: unknown }).message ?? error);
    if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') throw error;
    if (packages.some((name) => message.includes(`'${name}'`)))
      throw new BackendMissingError(packages, scheme, { cause: error });
    // Some other package is missing: the installation is broken, say so as it is.
    if (message.includes('Cannot find package')) throw error;
    throw new InvalidStoreUrlError(
      variable,
      'scheme',
      `${scheme} is not available in this build of @wharf/output-store`,
    );
  }
}
