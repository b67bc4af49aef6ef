import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { OutputClient } from '../client/output-client.js';
import { UploadTimeoutError } from '../errors.js';
import { issueSpawnToken } from '../spawn-token.js';
import { SqliteOutputStore } from '../sqlite/sqlite-output-store.js';
import { createIntakeServer, type IntakeServerOptions } from './intake-server.js';
import { postHead, rawUpload } from './raw-upload.test.data.js';

const secret = 'intake-pace-secret-with-enough-bytes-00001';
const producer = { ownerId: 'owner-p', runId: 'run-p', spawnId: 'spawn-p' };
const token = issueSpawnToken(
  {
    v: 1,
    ...producer,
    readRefs: [],
    expiresAt: Date.now() + 3_600_000,
    maxOutputs: 100,
    maxOutputBytes: 1 << 30,
  },
  secret,
);

/** Small grace and window so a test runs in about a second: at least 200 bytes per 200 ms. */
const pace = { uploadGraceMs: 200, uploadRateWindowMs: 200, minUploadBytesPerSecond: 1000 };

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function serve(options: Omit<IntakeServerOptions, 'secret' | 'store'> = pace) {
  const dir = await mkdtemp(join(tmpdir(), 'intake-pace-'));
  const path = join(dir, 'outputs.db');
  const store = new SqliteOutputStore({ path });
  const server = await createIntakeServer({ secret, store, ...options });
  cleanups.push(async () => {
    await server.close();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });
  return { server, store, blobTemps: join(`${path}.blobs`, 'tmp') };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `count` chunks of `bytes` bytes, one every `intervalMs`, then (when `stall`) no end at all. */
async function* paced(count: number, bytes: number, intervalMs: number, stall = false) {
  for (let index = 0; index < count; index++) {
    yield new Uint8Array(bytes).fill(97 + (index % 26));
    await sleep(intervalMs);
  }
  if (stall) await new Promise(() => undefined);
}

describe('intake upload pace', () => {
  it('cuts a trickling body after the grace period and one window: 408 TIMEOUT, connection closed, nothing stored', async () => {
    const { server, store } = await serve();
    // 50 bytes/s, against a minimum of 1000: a streamed (1 MiB) and a buffered (1 KiB) body.
    const uploads = [
      rawUpload(server.port, postHead(token, 'streamed', 1 << 20)),
      rawUpload(server.port, postHead(token, 'buffered', 1024)),
    ];
    const started = Date.now();
    for (const upload of uploads) upload.drip(5, 100);
    for (const upload of uploads) {
      const answer = await upload.closed;
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(answer).toMatch(/\r\nConnection: close\r\n/i);
      expect(answer).toContain('"code":"TIMEOUT"');
      expect(answer).toContain('minUploadBytesPerSecond');
    }
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(await store.count({ runId: 'run-p' })).toBe(0);
  });

  it('does not cut a slow but moving stream, however long it takes', async () => {
    const { server, store } = await serve({ ...pace, headersTimeoutMs: 300 });
    const client = new OutputClient({ url: server.url, token });
    // 2500 bytes/s for 1.5 s: seven windows past its grace, and five headers timeouts.
    const ref = await client.emit(paced(30, 125, 50), { idempotencyKey: 'moving' });
    expect((await store.stat(ref)).sizeBytes).toBe(30 * 125);
  });

  it('gives OutputClient a typed timeout, not a storage failure, when its stream stalls', async () => {
    const { server } = await serve();
    const client = new OutputClient({ url: server.url, token });
    const error = await client.emit(paced(2, 100, 10, true), { idempotencyKey: 'stalled' }).catch((e) => e);
    expect(UploadTimeoutError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      code: 'TIMEOUT',
      message: expect.stringMatching(/minimum of 1000 bytes\/s/),
    });
  });

  it('gives OutputClient a typed timeout for node:http’s own 408 (requestTimeoutMs)', async () => {
    const { server } = await serve({ requestTimeoutMs: 300, minUploadBytesPerSecond: 0 });
    const client = new OutputClient({ url: server.url, token });
    const error = await client.emit(paced(100, 100, 20), { idempotencyKey: 'ceiling' }).catch((e) => e);
    expect(error).toMatchObject({ code: 'TIMEOUT' });
  });

  it('loses and half-writes nothing when an upload is cut: stored outputs stay whole, the cut one leaves no trace', async () => {
    const { server, store, blobTemps } = await serve();
    const client = new OutputClient({ url: server.url, token, retry: { maxAttempts: 1 } });
    const big = new Uint8Array(200 * 1024).map((_, index) => index % 251);
    const small = await client.emit('a small output', { idempotencyKey: 'small' });
    const large = await client.emit(big, { idempotencyKey: 'large' });
    // A replay of the stored key and a new key, both cut halfway through their bodies.
    const replay = rawUpload(
      server.port,
      `${postHead(token, 'large', big.byteLength)}${'x'.repeat(100 * 1024)}`,
    );
    const fresh = rawUpload(
      server.port,
      `${postHead(token, 'fresh', big.byteLength)}${'y'.repeat(100 * 1024)}`,
    );
    expect(await replay.closed).toMatch(/^HTTP\/1\.1 408 /);
    expect(await fresh.closed).toMatch(/^HTTP\/1\.1 408 /);
    expect(Buffer.from((await store.get(small)).body).toString()).toBe('a small output');
    expect(Buffer.from((await store.get(large)).body).equals(Buffer.from(big))).toBe(true);
    expect(await store.findByIdempotencyKey(producer, 'fresh')).toBeUndefined();
    expect(await store.count({ runId: 'run-p' })).toBe(2);
    expect(await readdir(blobTemps)).toEqual([]);
    // The cut uploads gave their slots back: the key can be sent again, whole.
    const again = await client.emit(big, { idempotencyKey: 'fresh' });
    expect((await store.stat(again)).sizeBytes).toBe(big.byteLength);
  });

  it('closes a connection whose refused body is still dripping after the answer', async () => {
    const { server } = await serve();
    // A wrong token with a small declared body: answered 401 at once, the body read and dropped.
    const upload = rawUpload(server.port, postHead('not-a-token', 'refused', 1024));
    upload.drip(1, 50);
    expect(await upload.answer).toMatch(/^HTTP\/1\.1 401 /);
    const started = Date.now();
    await upload.closed;
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});
