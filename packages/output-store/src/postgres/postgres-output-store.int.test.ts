import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { LocalBlobStore } from '../blobs/local-blob-store.js';
import { readBody } from '../read-body.js';
import { createPostgresDatabase, type PostgresDatabase, runOutputStoreContract } from '../testing/index.js';
import { latestPostgresSchemaVersion } from './migrations.js';
import { PostgresOutputStore } from './postgres-output-store.js';

let database: PostgresDatabase;
let scratch: string;
beforeAll(async () => {
  database = await createPostgresDatabase(inject('postgresUrl'), 'contract');
  scratch = await mkdtemp(join(tmpdir(), 'wharf-pg-store-'));
});
afterAll(async () => {
  await database?.drop();
  await rm(scratch, { recursive: true, force: true });
});

// Each contract test gets a schema and a blob directory of its own; a 1 KiB inline threshold
// sends the larger bodies of the suite through the blob store.
runOutputStoreContract('PostgresOutputStore', (context) =>
  PostgresOutputStore.open({
    connectionString: database.url,
    schema: `contract_${randomBytes(5).toString('hex')}`,
    blobs: new LocalBlobStore({ root: join(context.scratchDir, 'blobs') }),
    inlineThresholdBytes: 1024,
    maxBodyBytes: context.maxBodyBytes,
    allowedRoots: [context.allowedRoot],
    now: context.now,
    maxConnections: 4,
  }),
);

describe('PostgresOutputStore options and schema', () => {
  it('refuses unusable options naming the option', () => {
    const blobs = new LocalBlobStore({
      root: join(scratch, 'options'),
    });
    const cases: [Record<string, unknown>, string][] = [
      [{ blobs }, 'connectionString'],
      [{ blobs, connectionString: database.url, pool: new pg.Pool() }, 'connectionString'],
      [{ blobs, connectionString: database.url, schema: 'Robert"; DROP TABLE x; --' }, 'schema'],
      [{ blobs, connectionString: database.url, inlineThresholdBytes: -1 }, 'inlineThresholdBytes'],
      [{ connectionString: database.url }, 'blobs'],
    ];
    for (const [options, option] of cases) {
      expect(() => new PostgresOutputStore(options as never), option).toThrow(
        expect.objectContaining({ code: 'INVALID_OPTION', option }),
      );
    }
  });

  it('migrates a fresh schema once and refuses a schema written by a newer version', async () => {
    const schema = `newer_${randomBytes(4).toString('hex')}`;
    const blobs = new LocalBlobStore({
      root: join(scratch, 'newer'),
    });
    const store = await PostgresOutputStore.open({ connectionString: database.url, schema, blobs });
    expect(await store.schemaVersion()).toBe(latestPostgresSchemaVersion);
    await store.close();
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    await client.query(`INSERT INTO "${schema}".schema_migrations (version) VALUES ($1)`, [
      latestPostgresSchemaVersion + 1,
    ]);
    await client.end();
    await expect(
      PostgresOutputStore.open({ connectionString: database.url, schema, blobs }),
    ).rejects.toMatchObject({
      code: 'STORAGE_FAILURE',
      message: expect.stringContaining('newer than this'),
    });
    await blobs.close();
  });

  it('works on a pool the caller owns and leaves it open on close', async () => {
    const pool = new pg.Pool({ connectionString: database.url, max: 2 });
    const blobs = new LocalBlobStore({
      root: join(scratch, 'pool'),
    });
    const store = await PostgresOutputStore.open({
      pool,
      blobs,
      schema: `pool_${randomBytes(4).toString('hex')}`,
    });
    const ref = await store.emit({
      producer: { ownerId: 'o', runId: 'r', spawnId: 's' },
      content: { kind: 'text', text: 'pooled' },
      idempotencyKey: 'k',
    });
    await store.close();
    expect((await pool.query('SELECT 1 AS one')).rows[0]).toEqual({ one: 1 });
    await pool.end();
    await blobs.close();
    expect(ref.outId).toMatch(/^out_/);
  });

  it('cuts a range of a body in the row in the database, sending only its bytes', async () => {
    const pool = new pg.Pool({ connectionString: database.url, max: 2 });
    const blobs = new LocalBlobStore({ root: join(scratch, 'slices') });
    const store = await PostgresOutputStore.open({
      pool,
      blobs,
      schema: `slices_${randomBytes(4).toString('hex')}`,
    });
    try {
      // A list's item index as a map reads it: 2,000 records of 32 bytes, one read per item.
      const body = randomBytes(64_000);
      const ref = await store.emit({
        producer: { ownerId: 'o', runId: 'r', spawnId: 's' },
        content: { kind: 'bytes', bytes: body },
        idempotencyKey: 'index',
      });
      const query = vi.spyOn(pool, 'query');
      const read = async (range: { start?: number; end?: number }) =>
        (await readBody(store, ref, range)).bytes;
      expect((await read({ start: 32_000, end: 32_032 })).equals(body.subarray(32_000, 32_032))).toBe(true);
      expect((await read({ start: 63_990 })).equals(body.subarray(63_990))).toBe(true);
      expect((await read({ start: 0, end: 0 })).length).toBe(0);
      expect((await read({ start: 64_000, end: 64_000 })).length).toBe(0);
      const received = await Promise.all(
        query.mock.results.map(async (result) => (await result.value) as pg.QueryResult),
      );
      const bodyBytes = received.flatMap((result) =>
        result.rows.map((row: { body?: Buffer | null }) => row.body?.length ?? 0),
      );
      expect(Math.max(...bodyBytes)).toBeLessThanOrEqual(32);
      query.mockRestore();
      // Ranges past the body, or backwards, are refused as before, naming the body's size.
      await expect(store.openBody(ref, { start: 63_990, end: 64_001 })).rejects.toMatchObject({
        code: 'INVALID_RANGE',
      });
      await expect(store.openBody(ref, { start: 5, end: 4 })).rejects.toMatchObject({
        code: 'INVALID_RANGE',
      });
      await expect(store.openBody(ref, { start: -1, end: 4 })).rejects.toMatchObject({
        code: 'INVALID_RANGE',
      });
    } finally {
      await store.close();
      await pool.end();
      await blobs.close();
    }
  });

  it('keeps a body while any row uses it, removes it with the last, and sweeps bodies no row ever used', async () => {
    const blobs = new LocalBlobStore({
      root: join(scratch, 'refs'),
    });
    const store = await PostgresOutputStore.open({
      connectionString: database.url,
      schema: `refs_${randomBytes(4).toString('hex')}`,
      blobs,
      inlineThresholdBytes: 16,
    });
    const producer = { ownerId: 'o', runId: 'r', spawnId: 's' };
    const body = Buffer.alloc(5000, 'shared');
    const sha = createHash('sha256').update(body).digest('hex');
    const first = await store.emit({
      producer,
      content: { kind: 'bytes', bytes: body },
      idempotencyKey: 'one',
    });
    const second = await store.emit({
      producer,
      content: { kind: 'bytes', bytes: body },
      idempotencyKey: 'two',
    });
    expect(await blobs.has(sha)).toBe(true);
    await store.delete(first);
    expect(await blobs.has(sha)).toBe(true);
    expect(Buffer.from((await store.get(second)).body).equals(body)).toBe(true);
    expect(await store.gc({ runId: 'r' })).toEqual({
      removed: 1,
      freedBytes: 5000,
      orphanBodies: { removed: 0, freedBytes: 0 },
    });
    expect(await blobs.has(sha)).toBe(false);
    // A body stored by an EMIT that died before its row committed.
    const orphan = Buffer.from('uploaded, never committed');
    const orphanSha = createHash('sha256').update(orphan).digest('hex');
    const path = join(blobs.tempDir, 'orphan.part');
    await writeFile(path, orphan);
    await blobs.putFile(orphanSha, path, orphan.length);
    // The EMIT holding no lock any more, no grace period is needed to remove it.
    expect(await store.sweepOrphanBodies({ graceMs: 0 })).toEqual({ removed: 1, freedBytes: orphan.length });
    expect(await blobs.has(orphanSha)).toBe(false);
    await store.close();
    await blobs.close();
  });

  it('counts the unreferenced bodies its gc sweeps in its report', async () => {
    const blobs = new LocalBlobStore({ root: join(scratch, 'gc-orphans') });
    const store = await PostgresOutputStore.open({
      connectionString: database.url,
      schema: `gc_orphans_${randomBytes(4).toString('hex')}`,
      blobs,
      inlineThresholdBytes: 16,
    });
    // Ten bodies stored by EMITs that died before their rows committed.
    let orphanBytes = 0;
    for (let index = 0; index < 10; index++) {
      const orphan = Buffer.from(`uploaded, never committed #${index}`);
      const path = join(blobs.tempDir, `orphan-${index}.part`);
      await writeFile(path, orphan);
      await blobs.putFile(createHash('sha256').update(orphan).digest('hex'), path, orphan.length);
      orphanBytes += orphan.length;
    }
    expect(await store.gc({ orphanGraceMs: 0 })).toEqual({
      removed: 0,
      freedBytes: 0,
      orphanBodies: { removed: 10, freedBytes: orphanBytes },
    });
    const left: unknown[] = [];
    for await (const blob of blobs.list()) left.push(blob);
    expect(left).toEqual([]);
    await store.close();
  });

  it('replaces an expired holder of a key with a new output, the old ref reading expired', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const blobs = new LocalBlobStore({
      root: join(scratch, 'ttl'),
    });
    const store = await PostgresOutputStore.open({
      connectionString: database.url,
      schema: `ttl_${randomBytes(4).toString('hex')}`,
      blobs,
      inlineThresholdBytes: 16,
      now: () => now,
    });
    const producer = { ownerId: 'o', runId: 'r', spawnId: 's' };
    const old = await store.emit({
      producer,
      content: { kind: 'text', text: 'first body, kept in a blob' },
      idempotencyKey: 'k',
      ttlMs: 1000,
    });
    now += 1001;
    expect(await store.findByIdempotencyKey(producer, 'k')).toBeUndefined();
    const fresh = await store.emit({
      producer,
      content: { kind: 'text', text: 'second body' },
      idempotencyKey: 'k',
    });
    expect(fresh.outId).not.toBe(old.outId);
    await expect(store.stat(old)).rejects.toMatchObject({ code: 'NOT_FOUND', reason: 'expired' });
    expect(Buffer.from((await store.get(fresh)).body).toString()).toBe('second body');
    expect(await store.findByIdempotencyKey(producer, 'k')).toEqual(fresh);
    await store.close();
    await blobs.close();
  });
});
