import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { LocalBlobStore } from '../blobs/local-blob-store.js';
import { createPostgresDatabase, type PostgresDatabase } from '../testing/index.js';
import { latestPostgresSchemaVersion } from './migrations.js';
import { PostgresOutputStore } from './postgres-output-store.js';

const rootEntry = fileURLToPath(new URL('../../dist/index.js', import.meta.url));
const postgresEntry = fileURLToPath(new URL('../../dist/postgres/index.js', import.meta.url));

/** Every third key's body is small (inline), the others go through the blob store. */
function bodyOf(key: string): Buffer {
  const { createHash: hash } = process.getBuiltinModule('node:crypto');
  const seed = hash('sha256').update(key).digest();
  const size = Number(key.split('-').at(-1)) % 3 === 0 ? 100 + (seed[0] ?? 0) : 3000 + seed.readUInt16BE(0);
  return Buffer.alloc(size, seed.toString('hex'));
}

/** A child process running `script` (ESM) with the store's entry points and `args`. */
function child(
  script: string,
  args: readonly string[],
): { process: ChildProcess; lines: string[]; exited: Promise<number | null> } {
  const started = spawn(
    process.execPath,
    ['--input-type=module', '-e', script, rootEntry, postgresEntry, ...args],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const lines: string[] = [];
  let buffered = '';
  started.stdout?.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const parts = buffered.split('\n');
    buffered = parts.pop() ?? '';
    lines.push(...parts);
  });
  const exited = new Promise<number | null>((resolve) => started.on('exit', resolve));
  return { process: started, lines, exited };
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Opens the store (migrating a fresh schema), says `ready`, waits for `go`, emits every key, prints the refs. */
const emitter = `
const [rootEntry, postgresEntry, url, schema, blobRoot, order] = process.argv.slice(1);
const bodyOf = ${bodyOf.toString()};
const { LocalBlobStore } = await import(rootEntry);
const { PostgresOutputStore } = await import(postgresEntry);
const blobs = new LocalBlobStore({ root: blobRoot });
const store = await PostgresOutputStore.open({ connectionString: url, schema, blobs, inlineThresholdBytes: 1024 });
console.log('ready');
await new Promise((resolve) => process.stdin.once('data', resolve));
const producer = { ownerId: 'owner', runId: 'run', spawnId: 'spawn' };
const refs = {};
await Promise.all(order.split(',').map(async (key) => {
  const ref = await store.emit({ producer, content: { kind: 'bytes', bytes: bodyOf(key) }, idempotencyKey: key });
  refs[key] = ref.outId;
}));
console.log(JSON.stringify(refs));
await store.close();
await blobs.close();
`;

/**
 * Emits one shared large body under fresh keys, reads each back at once, then deletes it, so
 * the body's last reference comes and goes while other processes store the same bytes.
 */
const churner = `
const [rootEntry, postgresEntry, url, schema, blobRoot, name, rounds] = process.argv.slice(1);
const { LocalBlobStore } = await import(rootEntry);
const { PostgresOutputStore } = await import(postgresEntry);
const blobs = new LocalBlobStore({ root: blobRoot });
const store = await PostgresOutputStore.open({ connectionString: url, schema, blobs, inlineThresholdBytes: 1024 });
const body = Buffer.alloc(50_000, 'shared body ');
const producer = { ownerId: 'owner', runId: 'churn', spawnId: name };
let broken = 0;
for (let round = 0; round < Number(rounds); round++) {
  if (name === 'gc') {
    await store.gc({});
    continue;
  }
  const ref = await store.emit({ producer, content: { kind: 'bytes', bytes: body }, idempotencyKey: name + '-' + round });
  try {
    const { body: read } = await store.get(ref);
    if (!Buffer.from(read).equals(body)) broken += 1;
  } catch (error) {
    broken += 1;
    console.error(name, round, String(error));
  }
  await store.delete(ref);
}
console.log(JSON.stringify({ broken }));
await store.close();
await blobs.close();
`;

describe('PostgresOutputStore shared by several processes', () => {
  let database: PostgresDatabase;
  let directory: string;
  beforeAll(async () => {
    database = await createPostgresDatabase(inject('postgresUrl'), 'processes');
    directory = await mkdtemp(join(tmpdir(), 'wharf-pg-processes-'));
  });
  afterAll(async () => {
    await database?.drop();
    await rm(directory, { recursive: true, force: true });
  });

  it('migrates a fresh schema once when processes open it together, then settles racing EMITs on one ref per key', async () => {
    const schema = `race_${randomBytes(4).toString('hex')}`;
    const blobRoot = join(directory, 'race-blobs');
    const keys = Array.from({ length: 36 }, (_, index) => `key-${index}`);
    // Each process emits every key, all at once, in its own order.
    const children = [0, 1, 2, 3].map((offset) =>
      child(emitter, [
        database.url,
        schema,
        blobRoot,
        [...keys.slice(offset * 9), ...keys.slice(0, offset * 9)].join(','),
      ]),
    );
    await until(
      () => children.every((running) => running.lines.includes('ready')),
      'every process to open the store',
    );
    for (const running of children) running.process.stdin?.end('go\n');
    const codes = await Promise.all(children.map((running) => running.exited));
    expect(codes).toEqual([0, 0, 0, 0]);
    const answers = children.map(
      (running) =>
        JSON.parse(running.lines.find((line) => line.startsWith('{')) ?? '{}') as Record<string, string>,
    );
    for (const key of keys) {
      const refs = new Set(answers.map((answer) => answer[key]));
      expect(refs.size, key).toBe(1);
    }

    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const versions = await client.query(`SELECT version FROM "${schema}".schema_migrations ORDER BY version`);
    await client.end();
    expect(versions.rows.map((row) => row.version)).toEqual(
      Array.from({ length: latestPostgresSchemaVersion }, (_, index) => index + 1),
    );

    const blobs = new LocalBlobStore({ root: blobRoot });
    const store = await PostgresOutputStore.open({ connectionString: database.url, schema, blobs });
    expect(await store.count({})).toBe(keys.length);
    for (const key of keys) {
      const { record, body } = await store.get({ outId: answers[0]?.[key] ?? '' });
      expect(Buffer.from(body).equals(bodyOf(key)), key).toBe(true);
      expect(record.sha256).toBe(createHash('sha256').update(bodyOf(key)).digest('hex'));
    }
    let stored = 0;
    for await (const _ of blobs.list()) stored += 1;
    expect(stored).toBe(keys.filter((key) => bodyOf(key).length > 1024).length);
    await store.close();
    await blobs.close();
  });

  it('never removes a body whose new reference another process is committing', async () => {
    const schema = `churn_${randomBytes(4).toString('hex')}`;
    const blobRoot = join(directory, 'churn-blobs');
    const setup = new LocalBlobStore({ root: blobRoot });
    await (await PostgresOutputStore.open({ connectionString: database.url, schema, blobs: setup })).close();
    const children = ['a', 'b', 'c', 'gc'].map((name) =>
      child(churner, [database.url, schema, blobRoot, name, name === 'gc' ? '400' : '120']),
    );
    const codes = await Promise.all(children.map((running) => running.exited));
    expect(codes).toEqual([0, 0, 0, 0]);
    const broken = children.map(
      (running) =>
        (JSON.parse(running.lines.find((line) => line.startsWith('{')) ?? '{}') as { broken: number }).broken,
    );
    expect(broken).toEqual([0, 0, 0, 0]);
    await setup.close();
  });
});
