import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { LocalBlobStore } from '../blobs/local-blob-store.js';
import type { SpawnTokenClaims } from '../schemas.js';
import { issueSpawnToken } from '../spawn-token.js';
import { createPostgresDatabase, type PostgresDatabase } from '../testing/index.js';
import { PostgresOutputStore } from './postgres-output-store.js';

const rootEntry = fileURLToPath(new URL('../../dist/index.js', import.meta.url));
const postgresEntry = fileURLToPath(new URL('../../dist/postgres/index.js', import.meta.url));
const secret = 'postgres-intake-test-secret-with-enough-bytes';

/** An intake process: its own PostgresOutputStore on the shared database, its own HTTP server. */
const intakeProcess = `
const [rootEntry, postgresEntry, url, schema, blobRoot, secret] = process.argv.slice(1);
const { createIntakeServer, LocalBlobStore } = await import(rootEntry);
const { PostgresOutputStore } = await import(postgresEntry);
const store = await PostgresOutputStore.open({
  connectionString: url, schema, blobs: new LocalBlobStore({ root: blobRoot }), maxConnections: 20,
});
// The quota is raced by one spawn's EMITs at once: the upload caps must let them all in.
const caps = { maxUploadsPerSpawn: 128, maxUploadsPerRun: 128 };
const server = await createIntakeServer({ store, secret, maxConcurrentRequests: 128, ...caps });
console.log(server.url);
process.stdin.on('end', async () => { await server.close(); await store.close(); process.exit(0); });
process.stdin.resume();
`;

function startIntake(args: readonly string[]): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    ['--input-type=module', '-e', intakeProcess, rootEntry, postgresEntry, ...args],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n')[0];
      if (out.includes('\n') && line) resolve({ url: line.trim(), child });
    });
    child.on('exit', (code) => reject(new Error(`intake process exited with ${code}`)));
  });
}

let database: PostgresDatabase;
let scratch: string;
const schema = `intake_${randomBytes(4).toString('hex')}`;
let intakes: { url: string; child: ChildProcess }[] = [];

beforeAll(async () => {
  database = await createPostgresDatabase(inject('postgresUrl'), 'intake');
  scratch = await mkdtemp(join(tmpdir(), 'wharf-pg-intake-'));
  // One process migrates first, so the three start on a ready schema.
  const first = await startIntake([database.url, schema, join(scratch, 'blobs'), secret]);
  intakes = [
    first,
    ...(await Promise.all(
      [1, 2].map(() => startIntake([database.url, schema, join(scratch, 'blobs'), secret])),
    )),
  ];
});
afterAll(async () => {
  await Promise.all(
    intakes.map(
      ({ child }) =>
        new Promise<void>((resolve) => {
          child.once('exit', () => resolve());
          child.stdin?.end();
        }),
    ),
  );
  await database?.drop();
  await rm(scratch, { recursive: true, force: true });
});

const claims: SpawnTokenClaims = {
  v: 1,
  ownerId: 'owner-p',
  runId: 'run-p',
  spawnId: 'spawn-p',
  readRefs: [],
  expiresAt: Date.now() + 3_600_000,
  maxOutputs: 5,
  maxOutputBytes: 1 << 22,
};

async function openStore(): Promise<PostgresOutputStore> {
  return PostgresOutputStore.open({
    connectionString: database.url,
    schema,
    blobs: new LocalBlobStore({ root: join(scratch, 'blobs') }),
  });
}

describe('the intake on PostgreSQL, three intake processes sharing one database', () => {
  it('stores exactly maxOutputs of 60 concurrent EMITs of one spawn spread over three intakes', async () => {
    const authorization = `Bearer ${issueSpawnToken(claims, secret)}`;
    const responses = await Promise.all(
      Array.from({ length: 60 }, (_, index) => {
        const intake = intakes[index % intakes.length] as { url: string };
        // Every fourth body is large: it streams, and its body goes through the blob store.
        const body = index % 4 === 0 ? randomBytes(100_000) : Buffer.from(`output ${index}`);
        return fetch(`${intake.url}/v1/outputs`, {
          method: 'POST',
          body,
          headers: { authorization, 'idempotency-key': `race-${index}` },
        });
      }),
    );
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(5);
    expect(statuses.filter((status) => status === 403)).toHaveLength(55);
    const store = await openStore();
    try {
      const producer = { ownerId: claims.ownerId, runId: claims.runId, spawnId: claims.spawnId };
      expect(await store.count(producer)).toBe(5);
      // A stored key is still answered (200) when the spawn is full; a new one is not.
      const stored = (await store.list(producer)).records[0];
      const replay = await fetch(`${intakes[1]?.url}/v1/outputs`, {
        method: 'POST',
        body: Buffer.from((await store.get({ outId: stored?.outId ?? '' })).body),
        headers: { authorization, 'idempotency-key': stored?.idempotencyKey ?? '' },
      });
      expect(replay.status).toBe(200);
      expect(await store.count(producer)).toBe(5);
    } finally {
      await store.close();
    }
  });

  it('answers 400 naming the field, not 500, for a NUL or a lone surrogate in what it stores', async () => {
    const authorization = `Bearer ${issueSpawnToken({ ...claims, spawnId: 'spawn-text', maxOutputs: 10 }, secret)}`;
    const url = `${intakes[0]?.url}/v1/outputs`;
    const raw = await fetch(url, {
      method: 'POST',
      body: 'x',
      headers: { authorization, 'idempotency-key': 'k%00nul' },
    });
    expect(raw.status).toBe(400);
    expect(await raw.json()).toMatchObject({ error: { code: 'INVALID_EVENT', field: 'idempotencyKey' } });
    const labelled = await fetch(url, {
      method: 'POST',
      body: 'x',
      headers: { authorization, 'idempotency-key': 'k-label', 'x-wharf-labels': 'step=a%00b' },
    });
    expect(labelled.status).toBe(400);
    const envelope = await fetch(url, {
      method: 'POST',
      body: JSON.stringify({ idempotencyKey: 'k\ud800', content: { kind: 'text', text: 'x' } }),
      headers: { authorization, 'content-type': 'application/vnd.wharf.output+json' },
    });
    expect(envelope.status).toBe(400);
    expect(await envelope.json()).toMatchObject({
      error: { code: 'INVALID_EVENT', field: 'idempotencyKey' },
    });
  });
});
