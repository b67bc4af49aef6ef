import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { createEncryptionCodec } from '@wharf/codec';
import { fromWirePayload, toWirePayload, type WirePayloads } from '@wharf/codec/server';
import { parseKeyRing } from '@wharf/orchestrator/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envWith, runWharf, type SpawnedWharf, spawnWharf } from './wharf-cli.js';

// `wharf codec-server` probed as an attacker would: no token, a wrong token, a wrong origin, a
// huge request, a payload under a key it lacks; and refusing to serve beyond loopback unguarded.
const keys = `k1:${randomBytes(32).toString('base64')}`;
const codec = createEncryptionCodec({ keyRing: parseKeyRing(keys) });
const stranger = createEncryptionCodec({ keyRing: parseKeyRing(`k0:${randomBytes(32).toString('base64')}`) });
const token = `codec-token-${randomBytes(12).toString('hex')}`;
const origin = 'http://localhost:8233';
const secret = 'cli-codec-secret-51f0';

async function encrypted(value: unknown, with_ = codec): Promise<Payload> {
  return ((await with_.encode([defaultPayloadConverter.toPayload(value) as Payload])) as [Payload])[0];
}

describe('wharf codec-server', () => {
  let dir: string;
  let served: SpawnedWharf;
  let url: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wharf-cli-codec-'));
    await writeFile(join(dir, 'token'), `${token}\n`, { mode: 0o600 });
    served = spawnWharf(
      [
        'codec-server',
        '--data-dir',
        join(dir, '.wharf'),
        '--port',
        '0',
        '--origin',
        origin,
        '--token-file',
        join(dir, 'token'),
      ],
      dir,
      {
        env: envWith({
          WHARF_CODEC_KEYS: keys,
          WHARF_CODEC_KEYS_FILE: undefined,
          WHARF_CODEC_TOKEN: undefined,
        }),
      },
    );
    url = (await served.waitFor(/at (http:\/\/127\.0\.0\.1:\d+)/, 'stdout'))[1] as string;
  });
  afterAll(async () => {
    served?.child.kill('SIGTERM');
    await served?.exited;
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  const post = (body: string, headers: Record<string, string> = {}) =>
    fetch(`${url}/default/decode`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body,
    });

  it('decodes for the bearer token, payload by payload: one under a key it lacks answered in place', async () => {
    const response = await post(
      JSON.stringify({
        payloads: [toWirePayload(await encrypted(secret)), toWirePayload(await encrypted('x', stranger))],
      }),
      { Authorization: `Bearer ${token}`, Origin: origin },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe(origin);
    const [decoded, refused] = ((await response.json()) as WirePayloads).payloads.map((wire) =>
      defaultPayloadConverter.fromPayload(fromWirePayload(wire)),
    );
    expect(decoded).toBe(secret);
    expect(refused).toMatch(/CODEC_UNKNOWN_KEY.*"k0"/);
    // Its log names who decoded which key ids, never what.
    await served.waitFor(/k1/);
    expect(served.output().stderr).not.toContain(secret);
    expect(served.output().stderr).not.toContain(token);
  });

  it('refuses no token, a wrong token, another origin and a huge request', async () => {
    const body = JSON.stringify({ payloads: [toWirePayload(await encrypted(secret))] });
    expect((await post(body)).status).toBe(401);
    expect((await post(body, { Authorization: 'Bearer wrong-token-0123456789' })).status).toBe(401);
    const foreign = await post(body, { Authorization: `Bearer ${token}`, Origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
    const huge = await post(`{"payloads":[{"data":"${'A'.repeat(5 * 1024 * 1024)}"}]}`, {
      Authorization: `Bearer ${token}`,
    }).catch(() => undefined);
    // Refused with 413, or the connection cut while the body was still being sent.
    if (huge !== undefined) expect(huge.status).toBe(413);
    for (const answer of [await post(body), foreign]) expect(await answer.text()).not.toContain(secret);
  });

  it('serves beyond loopback only with a token or an OIDC issuer, and needs the keys', async () => {
    const env = envWith({
      WHARF_CODEC_KEYS: keys,
      WHARF_CODEC_KEYS_FILE: undefined,
      WHARF_CODEC_TOKEN: undefined,
    });
    const open = await runWharf(
      ['codec-server', '--data-dir', join(dir, '.wharf'), '--host', '0.0.0.0', '--port', '0'],
      dir,
      { env },
    );
    expect(open.code).toBe(2);
    expect(open.stderr).toContain('without authentication');
    const keyless = await runWharf(['codec-server', '--data-dir', join(dir, '.wharf'), '--port', '0'], dir, {
      env: envWith({ WHARF_CODEC_KEYS: undefined, WHARF_CODEC_KEYS_FILE: undefined }),
    });
    expect(keyless.code).toBe(2);
    expect(keyless.stderr).toContain('WHARF_CODEC_KEYS');
    const malformed = await runWharf(
      ['codec-server', '--data-dir', join(dir, '.wharf'), '--port', '0'],
      dir,
      {
        env: envWith({ WHARF_CODEC_KEYS: 'k1:not-a-key!', WHARF_CODEC_KEYS_FILE: undefined }),
      },
    );
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).not.toContain('not-a-key!');
  });
});
