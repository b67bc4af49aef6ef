import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCodecServerConfig } from './codec-config.js';
import { type RunningCodecService, startCodecService } from './start-codec-service.js';
import { WorkerConfigError } from './worker-config-error.js';

const quiet = pino({ level: 'silent' });
const keys = `k1:${randomBytes(32).toString('base64')}`;
const origin = 'http://localhost:8233';

describe('startCodecService', () => {
  let dir: string;
  let codec: RunningCodecService;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wharf-codec-service-'));
    const env = {
      WHARF_CODEC_KEYS: keys,
      WHARF_CODEC_PORT: '0',
      WHARF_CODEC_ORIGINS: origin,
      WHARF_DATA_DIR: join(dir, 'data'),
    };
    codec = await startCodecService(loadCodecServerConfig(env), env, quiet);
  });

  afterAll(async () => {
    await codec?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('encrypts under the ring and decodes back for the configured UI origin, and refuses another', async () => {
    const plain = {
      metadata: { encoding: Buffer.from('json/plain').toString('base64') },
      data: Buffer.from('"the cargo"').toString('base64'),
    };
    const post = (path: string, body: unknown, from: string) =>
      fetch(`${codec.url}${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Origin: from },
        body: JSON.stringify(body),
      });
    const encoded = await post('/default/encode', { payloads: [plain] }, origin);
    expect(encoded.status).toBe(200);
    const { payloads } = (await encoded.json()) as { payloads: (typeof plain)[] };
    expect(Buffer.from(payloads[0]?.metadata.encoding ?? '', 'base64').toString()).toBe('binary/encrypted');
    expect(Buffer.from(payloads[0]?.data ?? '', 'base64').toString()).not.toContain('the cargo');

    const decoded = await post('/default/decode', { payloads }, origin);
    expect(decoded.status).toBe(200);
    expect(decoded.headers.get('access-control-allow-origin')).toBe(origin);
    const answer = (await decoded.json()) as { payloads: (typeof plain)[] };
    expect(Buffer.from(answer.payloads[0]?.data ?? '', 'base64').toString()).toBe('"the cargo"');

    const refused = await post('/default/decode', { payloads }, 'http://evil.example');
    expect(refused.status).toBe(403);
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('refuses to start without keys, and on a non-loopback host without a token, naming the variables', async () => {
    const attempt = async (env: Record<string, string>) => {
      try {
        const started = await startCodecService(loadCodecServerConfig(env), env, quiet);
        await started.close();
        return undefined;
      } catch (error) {
        return error as WorkerConfigError;
      }
    };
    const data = join(dir, 'refused');
    const noKeys = await attempt({ WHARF_CODEC_PORT: '0', WHARF_DATA_DIR: data });
    expect(WorkerConfigError.isInstance(noKeys)).toBe(true);
    expect(noKeys?.variables).toEqual(['WHARF_CODEC_KEYS', 'WHARF_CODEC_KEYS_FILE']);
    const open = await attempt({
      WHARF_CODEC_KEYS: keys,
      WHARF_CODEC_HOST: '0.0.0.0',
      WHARF_CODEC_PORT: '0',
      WHARF_DATA_DIR: data,
    });
    expect(WorkerConfigError.isInstance(open)).toBe(true);
    expect(open?.variables).toContain('WHARF_CODEC_HOST');
    expect(open?.message).not.toContain(keys.slice(3));
  });
});
