import { randomBytes } from 'node:crypto';
import type { Payload } from '@temporalio/common';
import { defaultPayloadConverter } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import {
  createEncryptionCodec,
  ENCRYPTED_ENCODING,
  encryptedPayloadKeyId,
  isEncryptedPayload,
} from './encryption-codec.js';
import { PayloadAuthenticationError, UnknownKeyIdError } from './errors.js';
import { KeyRing } from './key-ring.js';
import { metadataText } from './metadata.js';

const k1 = randomBytes(32);
const k2 = randomBytes(32);
const secret = 'planted-secret-7f3a9c';

function payloadOf(value: unknown): Payload {
  return defaultPayloadConverter.toPayload(value) as Payload;
}

describe('createEncryptionCodec', () => {
  const codec = createEncryptionCodec({ keyRing: KeyRing.from([{ id: 'k1', key: k1 }]) });

  it('round-trips payloads, metadata included, with no plaintext left in the encoded form', async () => {
    const original = [
      payloadOf({ prompt: secret, n: 1 }),
      payloadOf(null),
      payloadOf(new Uint8Array([1, 2, 3])),
    ];
    const encoded = await codec.encode(original);
    for (const payload of encoded) {
      expect(isEncryptedPayload(payload)).toBe(true);
      expect(metadataText(payload, 'encoding')).toBe(ENCRYPTED_ENCODING);
      expect(encryptedPayloadKeyId(payload)).toBe('k1');
      expect(Object.keys(payload.metadata ?? {}).sort()).toEqual([
        'encoding',
        'encryption-cipher',
        'encryption-key-id',
      ]);
    }
    expect(Buffer.from(encoded[0]?.data ?? []).includes(secret)).toBe(false);
    const decoded = await codec.decode(encoded);
    expect(decoded.map((payload) => defaultPayloadConverter.fromPayload(payload))).toEqual([
      { prompt: secret, n: 1 },
      null,
      new Uint8Array([1, 2, 3]),
    ]);
    expect(metadataText(decoded[0] as Payload, 'encoding')).toBe('json/plain');
  });

  it('uses a fresh nonce each time: the same value encrypts to different bytes', async () => {
    const [a, b] = await codec.encode([payloadOf('same'), payloadOf('same')]);
    expect(Buffer.from(a?.data ?? []).equals(Buffer.from(b?.data ?? []))).toBe(false);
  });

  it('passes plain payloads through decode untouched', async () => {
    const plain = payloadOf({ hello: 'world' });
    const [decoded] = await codec.decode([plain]);
    expect(decoded).toBe(plain);
  });

  it('after a rotation, decrypts under the old key and encrypts under the new one', async () => {
    const [old] = await codec.encode([payloadOf('written before the rotation')]);
    const rotated = createEncryptionCodec({
      keyRing: KeyRing.from([
        { id: 'k2', key: k2 },
        { id: 'k1', key: k1 },
      ]),
    });
    const [decoded] = await rotated.decode([old as Payload]);
    expect(defaultPayloadConverter.fromPayload(decoded as Payload)).toBe('written before the rotation');
    const [fresh] = await rotated.encode([payloadOf('after')]);
    expect(encryptedPayloadKeyId(fresh as Payload)).toBe('k2');
    await expect(codec.decode([fresh as Payload])).rejects.toSatisfy(
      (error) =>
        UnknownKeyIdError.isInstance(error) && error.keyId === 'k2' && error.message.includes('"k2"'),
    );
  });

  it('refuses an unknown key id, naming it', async () => {
    const [encoded] = await codec.encode([payloadOf(1)]);
    const other = createEncryptionCodec({ keyRing: KeyRing.from([{ id: 'k9', key: k2 }]) });
    const error = await other.decode([encoded as Payload]).catch((caught: unknown) => caught);
    expect(UnknownKeyIdError.isInstance(error)).toBe(true);
    expect((error as UnknownKeyIdError).code).toBe('CODEC_UNKNOWN_KEY');
    expect((error as Error).message).toContain('"k1"');
    expect((error as Error).name).toBe('UnknownKeyIdError');
  });

  it('refuses tampered ciphertext, nonce, tag, a key id swapped in metadata, or another key under the same id', async () => {
    const [encoded] = (await codec.encode([payloadOf({ prompt: secret })])) as [Payload];
    const data = encoded.data as Uint8Array;
    const flipped = (at: number): Payload => {
      const copy = Uint8Array.from(data);
      copy[at] = (copy[at] as number) ^ 1;
      return { ...encoded, data: copy };
    };
    const twoKeys = createEncryptionCodec({
      keyRing: KeyRing.from([
        { id: 'k1', key: k1 },
        { id: 'k2', key: k1 },
      ]),
    });
    const swappedId: Payload = {
      ...encoded,
      metadata: { ...encoded.metadata, 'encryption-key-id': new TextEncoder().encode('k2') },
    };
    const impostor = createEncryptionCodec({ keyRing: KeyRing.from([{ id: 'k1', key: k2 }]) });
    for (const [attempt, target] of [
      [() => codec.decode([flipped(0)]), 'k1'],
      [() => codec.decode([flipped(20)]), 'k1'],
      [() => codec.decode([flipped(data.byteLength - 1)]), 'k1'],
      [() => codec.decode([{ ...encoded, data: data.subarray(0, 10) }]), 'k1'],
      [() => twoKeys.decode([swappedId]), 'k2'],
      [() => impostor.decode([encoded]), 'k1'],
    ] as const) {
      const error = await attempt().catch((caught: unknown) => caught);
      expect(PayloadAuthenticationError.isInstance(error)).toBe(true);
      expect((error as PayloadAuthenticationError).code).toBe('CODEC_AUTH_FAILED');
      expect((error as PayloadAuthenticationError).keyId).toBe(target);
      expect((error as Error).message).toContain(`"${target}"`);
    }
  });
});
