import { readFile, stat } from 'node:fs/promises';
import { InvalidKeyRingError } from './errors.js';
import { KeyRing, type KeyRingEntry } from './key-ring.js';
import { codecEnvSchema, keyFileSchema } from './schemas.js';

/**
 * The environment variables that carry keys: a launcher removes them from any environment it
 * hands to a script or a model's tools.
 *
 * @example
 * ```ts
 * const scriptEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !codecEnvNames.includes(name)));
 * ```
 */
export const codecEnvNames: readonly string[] = ['WHARF_CODEC_KEYS', 'WHARF_CODEC_KEYS_FILE'];

const base64 = /^[A-Za-z0-9+/]+={0,2}$|^[A-Za-z0-9_-]+$/;

/**
 * Reads a key ring from text: `k2:<base64>,k1:<base64>` (entries separated by commas or
 * whitespace) or JSON `{ "keys": [{ "id", "key" }] }`; the first key is the active one. Keys
 * are 32 bytes in base64 (standard or URL-safe). Throws {@link InvalidKeyRingError}, whose
 * message names the entry or key id at fault and never a key.
 *
 * @example
 * ```ts
 * const ring = parseKeyRing(`k2:${newKey.toString('base64')},k1:${oldKey.toString('base64')}`);
 * ```
 */
export function parseKeyRing(text: string, source = 'key ring'): KeyRing {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) return KeyRing.from(jsonEntries(trimmed, source));
  const entries = trimmed.split(/[\s,]+/).filter((entry) => entry.length > 0);
  return KeyRing.from(
    entries.map((entry, index) => {
      const colon = entry.indexOf(':');
      if (colon <= 0)
        throw new InvalidKeyRingError(`${source}: entry ${index + 1} is not <key id>:<base64 key>`);
      const id = entry.slice(0, colon);
      return { id, key: decodeKey(id, entry.slice(colon + 1), source) };
    }),
  );
}

/** Options of {@link loadKeyRing}. */
export interface LoadKeyRingOptions {
  /** Where `WHARF_CODEC_KEYS` / `WHARF_CODEC_KEYS_FILE` are read. */
  env: Readonly<Record<string, string | undefined>>;
}

/**
 * The key ring the environment configures, or `undefined` when it configures none (encryption
 * off). `WHARF_CODEC_KEYS` holds the keys itself; `WHARF_CODEC_KEYS_FILE` names a regular file
 * holding them that only its owner may read (mode 0600 or 0400: a file with any group or other
 * permission is refused, as ssh refuses a private key). Setting both is refused; an empty
 * variable counts as unset.
 *
 * @example
 * ```ts
 * const keyRing = await loadKeyRing({ env: process.env });
 * const dataConverter = keyRing === undefined ? {} : encryptedDataConverter({ keyRing });
 * ```
 */
export async function loadKeyRing(options: LoadKeyRingOptions): Promise<KeyRing | undefined> {
  const parsed = codecEnvSchema.safeParse(options.env);
  if (!parsed.success)
    throw new InvalidKeyRingError(`${parsed.error.issues[0]?.path.join('.') ?? 'environment'} is malformed`);
  // An empty variable is unset: Compose's `${WHARF_CODEC_KEYS:-}` passes one when none is given.
  const inline = parsed.data.WHARF_CODEC_KEYS?.trim() || undefined;
  const file = parsed.data.WHARF_CODEC_KEYS_FILE?.trim() || undefined;
  if (inline !== undefined && file !== undefined)
    throw new InvalidKeyRingError('set WHARF_CODEC_KEYS or WHARF_CODEC_KEYS_FILE, not both');
  if (inline !== undefined) return parseKeyRing(inline, 'WHARF_CODEC_KEYS');
  if (file === undefined) return undefined;
  return parseKeyRing(await readPrivateFile(file), `WHARF_CODEC_KEYS_FILE ${file}`);
}

async function readPrivateFile(path: string): Promise<string> {
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(path);
  } catch (error) {
    throw new InvalidKeyRingError(
      `key file ${path} cannot be read (${(error as NodeJS.ErrnoException).code})`,
    );
  }
  if (!info.isFile()) throw new InvalidKeyRingError(`key file ${path} is not a regular file`);
  const mode = info.mode & 0o777;
  if ((mode & 0o077) !== 0)
    throw new InvalidKeyRingError(
      `key file ${path} has mode 0${mode.toString(8)}: others may read it; chmod 600 it (or mount the secret with mode 0400)`,
    );
  return readFile(path, 'utf8');
}

function jsonEntries(text: string, source: string): KeyRingEntry[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new InvalidKeyRingError(`${source}: not valid JSON`);
  }
  const parsed = keyFileSchema.safeParse(value);
  if (!parsed.success) {
    const path = parsed.error.issues[0]?.path.join('.') ?? '';
    throw new InvalidKeyRingError(`${source}: expected { "keys": [{ "id", "key" }, …] } (at "${path}")`);
  }
  return parsed.data.keys.map(({ id, key }) => ({ id, key: decodeKey(id, key, source) }));
}

function decodeKey(id: string, text: string, source: string): Uint8Array {
  if (!base64.test(text)) throw new InvalidKeyRingError(`${source}: key "${id}" is not base64`);
  return new Uint8Array(Buffer.from(text, text.includes('-') || text.includes('_') ? 'base64url' : 'base64'));
}
