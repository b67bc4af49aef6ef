import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { OutputClient } from '../client/output-client.js';
import { InMemoryOutputStore } from '../in-memory-output-store.js';
import { issueSpawnToken } from '../spawn-token.js';
import { SqliteOutputStore } from '../sqlite/sqlite-output-store.js';
import { createIntakeServer, type IntakeServer, type IntakeServerOptions } from './intake-server.js';
import { postHead, type RawUpload, rawUpload } from './raw-upload.test.data.js';

const secret = 'intake-fairness-secret-with-enough-bytes-1';
const token = (runId: string, spawnId: string) =>
  issueSpawnToken(
    {
      v: 1,
      ownerId: 'owner-f',
      runId,
      spawnId,
      readRefs: [],
      expiresAt: Date.now() + 3_600_000,
      maxOutputs: 100,
      maxOutputBytes: 1 << 30,
    },
    secret,
  );

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function serve(options: Omit<IntakeServerOptions, 'secret' | 'store'>) {
  const dir = await mkdtemp(join(tmpdir(), 'intake-fairness-'));
  const store = new SqliteOutputStore({ path: join(dir, 'outputs.db') });
  const server = await createIntakeServer({ secret, store, ...options });
  cleanups.push(async () => {
    await server.close();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });
  return { server, store };
}

/** Uploads of 1 MiB that send their headers and a first byte, then nothing more. */
function stuckUploads(server: IntakeServer, bearer: string, count: number, prefix: string): RawUpload[] {
  const uploads = Array.from({ length: count }, (_, index) =>
    rawUpload(server.port, `${postHead(bearer, `${prefix}-${index}`, 1 << 20)}x`),
  );
  cleanups.push(async () => {
    for (const upload of uploads) upload.stop();
  });
  return uploads;
}

/** The uploads the server has answered within `ms` (the others still hold their slots). */
async function answeredWithin(uploads: RawUpload[], ms: number): Promise<string[]> {
  const answers: string[] = [];
  for (const upload of uploads) void upload.answer.then((text) => answers.push(text));
  await new Promise((resolve) => setTimeout(resolve, ms));
  return answers;
}

describe('intake fairness', () => {
  it('holds one token to maxUploadsPerSpawn uploads; the rest get 429 and other spawns still store', async () => {
    const { server, store } = await serve({ maxConcurrentRequests: 8, maxUploadsPerSpawn: 2 });
    // As many never-finishing uploads as the intake has slots, from one token.
    const uploads = stuckUploads(server, token('run-a', 'hog'), 8, 'hog');
    const answers = await answeredWithin(uploads, 300);
    expect(answers).toHaveLength(6);
    for (const answer of answers) {
      expect(answer).toMatch(/^HTTP\/1\.1 429 /);
      expect(answer).toMatch(/\r\nRetry-After: 1\r\n/i);
      expect(answer).toContain('"code":"TOO_MANY_REQUESTS"');
      expect(answer).toContain('maxUploadsPerSpawn');
    }
    // Another spawn's EMIT gets a slot at once: no retry needed.
    const client = new OutputClient({
      url: server.url,
      token: token('run-b', 'worker'),
      retry: { maxAttempts: 1 },
    });
    const ref = await client.emit('normal output', { idempotencyKey: 'normal' });
    expect(Buffer.from((await store.get(ref)).body).toString()).toBe('normal output');
    // The held uploads stored nothing, and the refused ones nothing either.
    expect(await store.count({ runId: 'run-a' })).toBe(0);
  });

  it('holds one run to maxUploadsPerRun uploads across its spawns, and frees a slot when an upload ends', async () => {
    const { server } = await serve({ maxConcurrentRequests: 8, maxUploadsPerSpawn: 2, maxUploadsPerRun: 3 });
    const first = stuckUploads(server, token('run-a', 'one'), 2, 'one');
    const second = stuckUploads(server, token('run-a', 'two'), 2, 'two');
    const answers = await answeredWithin([...first, ...second], 300);
    expect(answers).toHaveLength(1);
    expect(answers[0]).toMatch(/^HTTP\/1\.1 429 /);
    expect(answers[0]).toContain('maxUploadsPerRun');
    // Another run is not held by run-a's uploads.
    const other = new OutputClient({
      url: server.url,
      token: token('run-b', 'one'),
      retry: { maxAttempts: 1 },
    });
    await expect(other.emit('b', { idempotencyKey: 'b' })).resolves.toMatchObject({
      outId: expect.any(String),
    });
    // An upload of run-a ends (its client goes away): a spawn of run-a gets the slot back.
    first[0]?.stop();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const three = new OutputClient({
      url: server.url,
      token: token('run-a', 'three'),
      retry: { maxAttempts: 1 },
    });
    await expect(three.emit('c', { idempotencyKey: 'c' })).resolves.toMatchObject({
      outId: expect.any(String),
    });
  });

  it('lets OutputClient.emit retry a 429 until the spawn has a slot again', async () => {
    const { server } = await serve({ maxUploadsPerSpawn: 1 });
    const [held] = stuckUploads(server, token('run-a', 'busy'), 1, 'held');
    await new Promise((resolve) => setTimeout(resolve, 100));
    const client = new OutputClient({ url: server.url, token: token('run-a', 'busy') });
    setTimeout(() => held?.stop(), 300);
    const started = Date.now();
    await expect(client.emit('after the wait', { idempotencyKey: 'waited' })).resolves.toMatchObject({
      outId: expect.any(String),
    });
    // Told `Retry-After: 1`, it came back once, about a second later.
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  it('refuses upload caps that are not whole numbers of at least 1, naming the option', async () => {
    await expect(
      createIntakeServer({ secret, store: new InMemoryOutputStore(), maxUploadsPerSpawn: 0 }),
    ).rejects.toMatchObject({
      code: 'INVALID_EVENT',
      field: 'maxUploadsPerSpawn',
    });
  });
});
