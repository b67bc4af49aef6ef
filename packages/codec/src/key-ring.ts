import { createSecretKey, type KeyObject } from 'node:crypto';
import { InvalidKeyRingError, UnknownKeyIdError } from './errors.js';

/** A key id: 1–64 letters, digits, `.`, `_` or `-` (it travels in every payload's metadata). */
const keyIdPattern = /^[A-Za-z0-9._-]{1,64}$/;
const keyBytes = 32;

/**
 * One key of a {@link KeyRing}: its id and its 32 bytes.
 *
 * @example
 * ```ts
 * const key: KeyRingEntry = { id: 'k1', key: randomBytes(32) };
 * ```
 */
export interface KeyRingEntry {
  readonly id: string;
  readonly key: Uint8Array;
}

/**
 * The AES-256 keys a codec encrypts and decrypts with: one active key encrypts, every key
 * decrypts, so payloads written before a rotation stay readable. The key bytes live in
 * `KeyObject`s the ring never shows: `toString`, `toJSON` and `util.inspect` name the key
 * ids only.
 *
 * @example
 * ```ts
 * const ring = KeyRing.from([{ id: 'k2', key: newKey }, { id: 'k1', key: oldKey }]);
 * ring.activeKeyId; // 'k2'
 * String(ring); // 'KeyRing(active k2; k2, k1)'
 * ```
 */
export class KeyRing {
  /** The id new payloads are encrypted under. */
  readonly activeKeyId: string;
  /** Every id this ring decrypts, the active one first. */
  readonly keyIds: readonly string[];
  readonly #keys: ReadonlyMap<string, KeyObject>;

  private constructor(activeKeyId: string, keys: ReadonlyMap<string, KeyObject>) {
    this.activeKeyId = activeKeyId;
    this.keyIds = [...keys.keys()];
    this.#keys = keys;
  }

  /**
   * A ring of the given keys, the first one active. Throws {@link InvalidKeyRingError} for no
   * keys, a malformed or repeated id, or a key that is not 32 bytes (naming the id, never the key).
   */
  static from(entries: readonly KeyRingEntry[]): KeyRing {
    const first = entries[0];
    if (first === undefined) throw new InvalidKeyRingError('a key ring needs at least one key');
    const keys = new Map<string, KeyObject>();
    for (const [index, { id, key }] of entries.entries()) {
      // The id is not quoted: a malformed one may be a key pasted in the wrong place.
      if (!keyIdPattern.test(id))
        throw new InvalidKeyRingError(
          `the id of key ${index + 1} is not 1–64 letters, digits, ".", "_" or "-"`,
        );
      if (keys.has(id)) throw new InvalidKeyRingError(`key id "${id}" appears twice`);
      if (key.byteLength !== keyBytes)
        throw new InvalidKeyRingError(`key "${id}" is ${key.byteLength} bytes; AES-256 needs ${keyBytes}`);
      keys.set(id, createSecretKey(key));
    }
    return new KeyRing(first.id, keys);
  }

  /** The key of `keyId`; throws {@link UnknownKeyIdError} naming it when the ring lacks it. */
  key(keyId: string): KeyObject {
    const key = this.#keys.get(keyId);
    if (key === undefined) throw new UnknownKeyIdError(keyId);
    return key;
  }

  /** Whether the ring holds `keyId`. */
  has(keyId: string): boolean {
    return this.#keys.has(keyId);
  }

  /** The ring's ids, never its keys. */
  toString(): string {
    return `KeyRing(active ${this.activeKeyId}; ${this.keyIds.join(', ')})`;
  }

  /** The ring's ids, never its keys. */
  toJSON(): { activeKeyId: string; keyIds: readonly string[] } {
    return { activeKeyId: this.activeKeyId, keyIds: this.keyIds };
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return this.toString();
  }
}
