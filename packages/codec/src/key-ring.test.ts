import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { InvalidKeyRingError, UnknownKeyIdError } from './errors.js';
import { KeyRing } from './key-ring.js';

describe('KeyRing', () => {
  const key = randomBytes(32);
  const shown = [key.toString('base64'), key.toString('base64url'), key.toString('hex')];

  it('encrypts under its first key and decrypts under any', () => {
    const ring = KeyRing.from([
      { id: 'k2', key: randomBytes(32) },
      { id: 'k1', key },
    ]);
    expect(ring.activeKeyId).toBe('k2');
    expect(ring.keyIds).toEqual(['k2', 'k1']);
    expect(ring.has('k1')).toBe(true);
    expect(ring.key('k1').export().equals(key)).toBe(true);
    expect(() => ring.key('k0')).toThrow(UnknownKeyIdError);
  });

  it('never shows a key in toString, JSON, inspect or an error', () => {
    const ring = KeyRing.from([{ id: 'k1', key }]);
    const renderings = [
      String(ring),
      JSON.stringify(ring),
      inspect(ring, { showHidden: true, depth: 9 }),
      `${ring}`,
    ];
    for (const text of renderings) {
      expect(text).toContain('k1');
      for (const form of shown) expect(text).not.toContain(form);
    }
  });

  it('refuses no keys, short keys, repeated or malformed ids, without quoting a malformed id', () => {
    expect(() => KeyRing.from([])).toThrow(InvalidKeyRingError);
    expect(() => KeyRing.from([{ id: 'k1', key: randomBytes(16) }])).toThrow(/"k1" is 16 bytes/);
    expect(() =>
      KeyRing.from([
        { id: 'k1', key },
        { id: 'k1', key },
      ]),
    ).toThrow(/appears twice/);
    const pasted = key.toString('base64');
    const error = (() => {
      try {
        KeyRing.from([{ id: pasted, key }]);
      } catch (caught) {
        return caught as InvalidKeyRingError;
      }
      return undefined;
    })();
    expect(error?.code).toBe('CODEC_INVALID_KEY_RING');
    expect(error?.message).not.toContain(pasted);
  });
});
