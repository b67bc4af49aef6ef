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

/**
 * A hint for an error met reading an encrypted payload without the keys (Temporal's payload
 * converter names the encoding it does not know), else undefined.
 *
 * @example
 * ```ts
 * const hint = encryptedPayloadHint(error); // 'the run's payloads are encrypted: set WHARF_CODEC_KEYS …'
 * ```
 */
export function encryptedPayloadHint(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < 5; depth++) {
    if (current instanceof Error && current.message.includes('encoding: binary/encrypted'))
      return "the run's payloads are encrypted: set WHARF_CODEC_KEYS or WHARF_CODEC_KEYS_FILE to the workers' key ring";
    current = current instanceof Error ? current.cause : undefined;
  }
  return undefined;
}
