import { OutputStoreError } from '@wharf/output-store';
import { CliError } from './cli-error.js';

/**
 * The {@link CliError} for an output store's refusal while a command reads outputs, or
 * `undefined` for any other error: nothing stored under the id exits 3 (`NOT_FOUND`), any other
 * refusal of the store (a bad id, a bad range, a part that is not what was asked) exits 2.
 *
 * @example
 * ```ts
 * try { await data.store.get({ outId }); } catch (error) { throw outputReadCliError(error) ?? error; }
 * ```
 */
export function outputReadCliError(error: unknown): CliError | undefined {
  if (!OutputStoreError.isInstance(error)) return undefined;
  return new CliError(error.code === 'NOT_FOUND' ? 'NOT_FOUND' : 'USAGE', error.message, { cause: error });
}
