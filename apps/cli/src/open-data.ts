import { type DataDir, openDataDir } from '@wharf/orchestrator/data-dir';
import { BackendMissingError, InvalidStoreUrlError } from '@wharf/output-store/config';
import { CliError } from './cli-error.js';

/**
 * The data directory with the data plane `WHARF_STORE` / `WHARF_BLOBS` name (else its own); a
 * malformed URL or a backend that is not installed is a usage error naming it.
 *
 * @example
 * ```ts
 * const data = await openData('.wharf');
 * try { await data.store.list({ limit: 10 }); } finally { await data.close(); }
 * ```
 */
export async function openData(dataDir: string): Promise<DataDir> {
  try {
    return await openDataDir(dataDir);
  } catch (error) {
    if (InvalidStoreUrlError.isInstance(error) || BackendMissingError.isInstance(error))
      throw new CliError('USAGE', error.message, { cause: error });
    throw error;
  }
}
