import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InvalidKeyRingError } from './errors.js';
import { loadKeyRing, parseKeyRing } from './load-key-ring.js';

const k1 = randomBytes(32);
const k2 = randomBytes(32);
const inline = `k2:${k2.toString('base64')},k1:${k1.toString('base64')}`;

function messageOf(action: () => unknown): string {
  try {
    action();
  } catch (error) {
    expect(InvalidKeyRingError.isInstance(error)).toBe(true);
    return (error as Error).message;
  }
  throw new Error('did not throw');
}

describe('parseKeyRing', () => {
  it('reads id:base64 entries separated by commas or whitespace, the first active', () => {
    const ring = parseKeyRing(inline);
    expect(ring.activeKeyId).toBe('k2');
    expect(ring.key('k1').export().equals(k1)).toBe(true);
    expect(parseKeyRing(`k2:${k2.toString('base64url')}\n k1:${k1.toString('base64')}\n`).keyIds).toEqual([
      'k2',
      'k1',
    ]);
  });

  it('reads JSON { keys: [{ id, key }] }', () => {
    const ring = parseKeyRing(JSON.stringify({ keys: [{ id: 'a', key: k1.toString('base64') }] }));
    expect(ring.activeKeyId).toBe('a');
  });

  it('refuses malformed rings without repeating a key', () => {
    const key = k1.toString('base64');
    for (const text of [
      '',
      key,
      `k1:${key.slice(0, 20)}`,
      `k1:${key}!`,
      `{"keys":[{"id":"k1","secret":"${key}"}]}`,
      `{"keys":[{"id":"k1","key":"${key}"}`,
    ]) {
      const message = messageOf(() => parseKeyRing(text, 'WHARF_CODEC_KEYS'));
      expect(message).not.toContain(key);
      expect(message).not.toContain(key.slice(0, 20));
    }
  });
});

describe('loadKeyRing', () => {
  const folders: string[] = [];
  afterAll(async () => {
    for (const folder of folders) await rm(folder, { recursive: true, force: true });
  });
  async function keyFile(text: string, mode: number): Promise<string> {
    const folder = await mkdtemp(join(tmpdir(), 'wharf-codec-keys-'));
    folders.push(folder);
    const path = join(folder, 'keys');
    await writeFile(path, text);
    await chmod(path, mode);
    return path;
  }

  it('is off without either variable', async () => {
    expect(await loadKeyRing({ env: {} })).toBeUndefined();
  });

  it('is off with empty variables, as Compose passes an unset one', async () => {
    expect(await loadKeyRing({ env: { WHARF_CODEC_KEYS: '', WHARF_CODEC_KEYS_FILE: ' ' } })).toBeUndefined();
  });

  it('reads WHARF_CODEC_KEYS', async () => {
    expect((await loadKeyRing({ env: { WHARF_CODEC_KEYS: inline } }))?.keyIds).toEqual(['k2', 'k1']);
  });

  it('reads a 0600 or 0400 WHARF_CODEC_KEYS_FILE in either format', async () => {
    const plain = await keyFile(`${inline}\n`, 0o600);
    expect((await loadKeyRing({ env: { WHARF_CODEC_KEYS_FILE: plain } }))?.activeKeyId).toBe('k2');
    const json = await keyFile(JSON.stringify({ keys: [{ id: 'j1', key: k1.toString('base64') }] }), 0o400);
    expect((await loadKeyRing({ env: { WHARF_CODEC_KEYS_FILE: json } }))?.activeKeyId).toBe('j1');
  });

  it('refuses a key file others may read, naming its mode', async () => {
    for (const mode of [0o644, 0o640, 0o604]) {
      const path = await keyFile(inline, mode);
      await expect(loadKeyRing({ env: { WHARF_CODEC_KEYS_FILE: path } })).rejects.toThrow(
        new RegExp(`mode 0${mode.toString(8)}`),
      );
    }
  });

  it('refuses both variables at once, and a missing file', async () => {
    await expect(
      loadKeyRing({ env: { WHARF_CODEC_KEYS: inline, WHARF_CODEC_KEYS_FILE: '/x' } }),
    ).rejects.toThrow(/not both/);
    await expect(loadKeyRing({ env: { WHARF_CODEC_KEYS_FILE: '/nonexistent/keys' } })).rejects.toThrow(
      InvalidKeyRingError,
    );
  });
});
