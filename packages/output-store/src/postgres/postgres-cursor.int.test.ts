import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { LocalBlobStore } from '../blobs/local-blob-store.js';
import { encodeCursor } from '../cursor.js';
import { createPostgresDatabase, type PostgresDatabase } from '../testing/index.js';
import { migratePostgres } from './migrations.js';
import { PostgresOutputStore } from './postgres-output-store.js';

const rootEntry = fileURLToPath(new URL('../../dist/index.js', import.meta.url));
const postgresEntry = fileURLToPath(new URL('../../dist/postgres/index.js', import.meta.url));

/** Opens the store, says `ready`, waits for `go`, then EMITs `count` outputs, `lanes` at a time. */
const writer = `
const [rootEntry, postgresEntry, url, schema, blobRoot, name, count, lanes] = process.argv.slice(1);
const { LocalBlobStore } = await import(rootEntry);
const { PostgresOutputStore } = await import(postgresEntry);
const store = await PostgresOutputStore.open({ connectionString: url, schema, blobs: new LocalBlobStore({ root: blobRoot }) });
console.log('ready');
await new Promise((resolve) => process.stdin.once('data', resolve));
let next = 0;
await Promise.all(Array.from({ length: Number(lanes) }, async () => {
  while (next < Number(count)) {
    const index = next++;
    await store.emit({
      producer: { ownerId: 'owner', runId: 'run', spawnId: name },
      content: { kind: 'text', text: name + ' ' + index },
      idempotencyKey: String(index),
    });
  }
}));
await store.close();
`;

function startWriter(args: readonly string[]): {
  child: ChildProcess;
  ready: Promise<void>;
  exited: Promise<number | null>;
} {
  const child = spawn(
    process.execPath,
    ['--input-type=module', '-e', writer, rootEntry, postgresEntry, ...args],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const ready = new Promise<void>((resolve) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) resolve();
    });
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { child, ready, exited };
}

let database: PostgresDatabase;
let scratch: string;
beforeAll(async () => {
  database = await createPostgresDatabase(inject('postgresUrl'), 'cursor');
  scratch = await mkdtemp(join(tmpdir(), 'wharf-pg-cursor-'));
});
afterAll(async () => {
  await database?.drop();
  await rm(scratch, { recursive: true, force: true });
});

function open(schema: string): Promise<PostgresOutputStore> {
  return PostgresOutputStore.open({
    connectionString: database.url,
    schema,
    blobs: new LocalBlobStore({ root: join(scratch, schema) }),
  });
}

describe('PostgreSQL list cursors', () => {
  it('never skip a record while four processes write: a consumer resuming from its cursor sees every one', async () => {
    const schema = `cursor_${randomBytes(4).toString('hex')}`;
    const store = await open(schema);
    // Commits lag their inserts by up to 10 ms, as on a busy server: rows of concurrent
    // writers then commit out of seq order all the time, not only now and then.
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    await admin.query(
      `CREATE FUNCTION "${schema}".slow_commit() RETURNS trigger LANGUAGE plpgsql
         AS $$ BEGIN PERFORM pg_sleep(random() * 0.01); RETURN NULL; END $$;
       CREATE TRIGGER slow_commit AFTER INSERT ON "${schema}".outputs
         FOR EACH ROW EXECUTE FUNCTION "${schema}".slow_commit();`,
    );
    await admin.end();
    const perWriter = 500;
    const writers = ['w0', 'w1', 'w2', 'w3'].map((name) =>
      startWriter([database.url, schema, join(scratch, schema), name, String(perWriter), '4']),
    );
    try {
      await Promise.all(writers.map((started) => started.ready));
      for (const { child } of writers) child.stdin?.end('go\n');
      let running = writers.length;
      const done = Promise.all(writers.map(({ exited }) => exited.finally(() => (running -= 1))));
      // The consumer follows the writers closely, as a tailing reader does: a full page moves
      // its cursor on; a short page is read again from the same cursor.
      const seen = new Set<string>();
      let cursor: string | undefined;
      for (;;) {
        const finished = running === 0;
        const page = await store.list({ limit: 25, ...(cursor === undefined ? {} : { cursor }) });
        for (const record of page.records) seen.add(record.outId);
        if (page.nextCursor !== undefined) cursor = page.nextCursor;
        else if (finished) break;
      }
      expect(await done).toEqual([0, 0, 0, 0]);
      const stored = new Set<string>();
      let page = await store.list({ limit: 1000 });
      for (;;) {
        for (const record of page.records) stored.add(record.outId);
        if (page.nextCursor === undefined) break;
        page = await store.list({ limit: 1000, cursor: page.nextCursor });
      }
      expect(stored.size).toBe(4 * perWriter);
      const missed = [...stored].filter((outId) => !seen.has(outId));
      expect(missed).toEqual([]);
    } finally {
      for (const { child } of writers) child.kill('SIGKILL');
      await store.close();
    }
  });

  it('resume a cursor of the first schema where it was after the upgrade', async () => {
    const schema = `legacy_${randomBytes(4).toString('hex')}`;
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      await migratePostgres(client as unknown as pg.PoolClient, schema, 1);
      for (let index = 0; index < 5; index++) {
        await client.query(
          `INSERT INTO "${schema}".outputs (out_id, owner_id, run_id, spawn_id, idempotency_key, content_type,
             size_bytes, sha256, created_at, storage, body, labels)
           VALUES ($1, 'o', 'r', 's', $2, 'text/plain', 1, $3, 0, 'inline', $4, '{}')`,
          [`out_legacyAAAAAAAAA${index}`, `k${index}`, 'a'.repeat(64), Buffer.from(String(index))],
        );
      }
    } finally {
      await client.end();
    }
    const store = await open(schema);
    try {
      const all = (await store.list({})).records.map((record) => record.outId);
      expect(all).toHaveLength(5);
      // A cursor given out before the upgrade, after the second row.
      const seqs = await store.list({ cursor: encodeCursor(2) });
      expect(seqs.records.map((record) => record.outId)).toEqual(all.slice(2));
      const ref = await store.emit({
        producer: { ownerId: 'o', runId: 'r', spawnId: 's' },
        content: { kind: 'text', text: 'new' },
        idempotencyKey: 'after-upgrade',
      });
      const first = await store.list({ limit: 4 });
      if (first.nextCursor === undefined) throw new Error('expected a second page');
      const rest = await store.list({ limit: 4, cursor: first.nextCursor });
      expect([...first.records, ...rest.records].map((record) => record.outId)).toEqual([...all, ref.outId]);
    } finally {
      await store.close();
    }
  });
});
