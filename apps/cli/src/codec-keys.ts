import { InvalidKeyRingError, type KeyRing, loadKeyRing } from '@wharf/codec';
import { CliError } from './cli-error.js';

/**
 * The payload encryption key ring `WHARF_CODEC_KEYS` / `WHARF_CODEC_KEYS_FILE` hold, or
 * undefined (encryption off). A malformed ring, or a key file others may read, is a usage error
 * (exit 2) naming the variable or the file, never a key.
 *
 * @example
 * ```ts
 * const keyRing = await cliKeyRing(process.env);
 * const wharf = new WharfClient({ connection, namespace, keyRing });
 * ```
 */
export async function cliKeyRing(
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<KeyRing | undefined> {
  try {
    return await loadKeyRing({ env });
  } catch (error) {
    if (InvalidKeyRingError.isInstance(error)) throw new CliError('USAGE', error.message, { cause: error });
    throw error;
  }
}
