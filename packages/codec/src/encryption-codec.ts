import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';
import proto from '@temporalio/proto';
import { InvalidEncryptedPayloadError, PayloadAuthenticationError } from './errors.js';
import type { KeyRing } from './key-ring.js';
import { metadataText, textBytes } from './metadata.js';

const ProtoPayload = proto.temporal.api.common.v1.Payload;

/** The `encoding` of an encrypted payload (as in Temporal's encryption sample). */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
/** The metadata key naming the key an encrypted payload is under. */
export const ENCRYPTION_KEY_ID = 'encryption-key-id';
/** The metadata key naming the cipher and layout of an encrypted payload's data. */
export const ENCRYPTION_CIPHER = 'encryption-cipher';
const cipherName = 'aes-256-gcm';
const cipherLayout = 'AES256GCM/nonce12-tag16';
const nonceBytes = 12;
const tagBytes = 16;

/** Options of {@link createEncryptionCodec}. */
export interface EncryptionCodecOptions {
  /** Encrypts under its active key, decrypts under any of its keys. */
  keyRing: KeyRing;
}

/**
 * A Temporal `PayloadCodec` that encrypts every payload with AES-256-GCM: the whole original
 * payload (metadata and data, protobuf-encoded) becomes the ciphertext, under a random 96-bit
 * nonce and the ring's active key, whose id travels in the metadata (`encryption-key-id`, also
 * bound to the ciphertext as associated data). The data is nonce ‖ ciphertext ‖ tag; the
 * encoding `binary/encrypted`.
 *
 * Decoding leaves a payload that is not `binary/encrypted` as it is (payloads written before
 * encryption was turned on stay readable), and throws {@link UnknownKeyIdError} or
 * {@link PayloadAuthenticationError}, naming the key id, for one it cannot open.
 *
 * @example
 * ```ts
 * const codec = createEncryptionCodec({ keyRing: parseKeyRing(process.env.WHARF_CODEC_KEYS ?? '') });
 * const dataConverter = { payloadCodecs: [codec], failureConverter: encryptedFailureConverter() };
 * ```
 */
export function createEncryptionCodec(options: EncryptionCodecOptions): PayloadCodec {
  const { keyRing } = options;
  return {
    async encode(payloads: Payload[]): Promise<Payload[]> {
      return payloads.map((payload) => encryptPayload(keyRing, payload));
    },
    async decode(payloads: Payload[]): Promise<Payload[]> {
      return payloads.map((payload) =>
        isEncryptedPayload(payload) ? decryptPayload(keyRing, payload) : payload,
      );
    },
  };
}

/**
 * Whether a payload is one {@link createEncryptionCodec} encrypted (its encoding is
 * `binary/encrypted`).
 *
 * @example
 * ```ts
 * if (isEncryptedPayload(payload)) console.log(encryptedPayloadKeyId(payload));
 * ```
 */
export function isEncryptedPayload(payload: Payload): boolean {
  return metadataText(payload, 'encoding') === ENCRYPTED_ENCODING;
}

/**
 * The key id an encrypted payload names, or `undefined` when it names none.
 *
 * @example
 * ```ts
 * encryptedPayloadKeyId(payload); // 'k2'
 * ```
 */
export function encryptedPayloadKeyId(payload: Payload): string | undefined {
  return metadataText(payload, ENCRYPTION_KEY_ID);
}

function associatedData(keyId: string): Uint8Array {
  return textBytes(`wharf-codec/v1 ${keyId}`);
}

function encryptPayload(keyRing: KeyRing, payload: Payload): Payload {
  const keyId = keyRing.activeKeyId;
  const nonce = randomBytes(nonceBytes);
  const cipher = createCipheriv(cipherName, keyRing.key(keyId), nonce, { authTagLength: tagBytes });
  cipher.setAAD(associatedData(keyId));
  const plaintext = ProtoPayload.encode(payload).finish();
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return {
    metadata: {
      encoding: textBytes(ENCRYPTED_ENCODING),
      [ENCRYPTION_KEY_ID]: textBytes(keyId),
      [ENCRYPTION_CIPHER]: textBytes(cipherLayout),
    },
    data: new Uint8Array(Buffer.concat([nonce, ciphertext, cipher.getAuthTag()])),
  };
}

function decryptPayload(keyRing: KeyRing, payload: Payload): Payload {
  const keyId = encryptedPayloadKeyId(payload);
  if (keyId === undefined)
    throw new InvalidEncryptedPayloadError(`encrypted payload has no ${ENCRYPTION_KEY_ID} in its metadata`);
  const key = keyRing.key(keyId);
  const cipherText = metadataText(payload, ENCRYPTION_CIPHER);
  if (cipherText !== undefined && cipherText !== cipherLayout)
    throw new InvalidEncryptedPayloadError(`encrypted payload under key id "${keyId}" uses unknown cipher`);
  const data = payload.data ?? new Uint8Array();
  if (data.byteLength < nonceBytes + tagBytes) throw new PayloadAuthenticationError(keyId);
  const nonce = data.subarray(0, nonceBytes);
  const tag = data.subarray(data.byteLength - tagBytes);
  const decipher = createDecipheriv(cipherName, key, nonce, { authTagLength: tagBytes });
  decipher.setAAD(associatedData(keyId));
  decipher.setAuthTag(tag);
  let plaintext: Buffer;
  try {
    plaintext = Buffer.concat([
      decipher.update(data.subarray(nonceBytes, data.byteLength - tagBytes)),
      decipher.final(),
    ]);
  } catch {
    throw new PayloadAuthenticationError(keyId);
  }
  try {
    return ProtoPayload.decode(plaintext) as Payload;
  } catch {
    throw new InvalidEncryptedPayloadError(`payload under key id "${keyId}" decrypts to no protobuf payload`);
  }
}
