import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { LocalBlobStore } from '../blobs/local-blob-store.js';
import { createPostgresDatabase, type PostgresDatabase, runOutputStoreContract } from '../testing/index.js';
import { latestPostgresSchemaVersion } from './migrations.js';
import { PostgresOutputStore } from './postgres-output-store.js';

let database: PostgresDatabase;
beforeAll(async () => {
  database = await createPostgresDatabase(inject('postgresUrl'), 'contract');
});
afterAll(async () => {
  await database?.drop();
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
      root: join(process.env.TMPDIR ?? '/tmp', `wharf-opt-${process.pid}`),
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
      root: join(process.env.TMPDIR ?? '/tmp', `wharf-newer-${process.pid}`),
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
      root: join(process.env.TMPDIR ?? '/tmp', `wharf-pool-${process.pid}`),
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
});
