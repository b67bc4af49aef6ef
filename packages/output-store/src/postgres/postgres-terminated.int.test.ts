import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { LocalBlobStore } from '../blobs/local-blob-store.js';
import { createPostgresDatabase, type PostgresDatabase } from '../testing/index.js';
import { PostgresOutputStore } from './postgres-output-store.js';

/** A blob store whose uploads wait until the test lets them go: a body uploading for a while. */
class HeldBlobStore extends LocalBlobStore {
  readonly entered = deferred();
  readonly release = deferred();
  override async putFile(sha256: string, path: string, sizeBytes: number): Promise<void> {
    this.entered.resolve();
    await this.release.promise;
    return super.putFile(sha256, path, sizeBytes);
  }
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

let database: PostgresDatabase;
let scratch: string;
beforeAll(async () => {
  database = await createPostgresDatabase(inject('postgresUrl'), 'terminated');
  scratch = await mkdtemp(join(tmpdir(), 'wharf-pg-terminated-'));
});
afterAll(async () => {
  await database?.drop();
  await rm(scratch, { recursive: true, force: true });
});

// PostgreSQL restarted (or a connection cut) while a body uploads under its address lock: the
// connection the store holds is ended by the server. That must fail the write, never the
// process (an 'error' event on a checked-out pg client with no listener ends it), and the next
// write goes through on a new connection.
describe('a store whose server ends its connections', () => {
  it('fails the write in flight, not the process, and writes again afterwards', async () => {
    const blobs = new HeldBlobStore({ root: join(scratch, 'blobs') });
    const store = await PostgresOutputStore.open({
      connectionString: database.url,
      blobs,
      inlineThresholdBytes: 16,
    });
    const producer = { ownerId: 'owner', runId: 'run', spawnId: 'spawn' };
    try {
      const body = (key: string) => ({ kind: 'bytes' as const, bytes: Buffer.from(key.repeat(64)) });
      const inFlight = store.emit({ producer, content: body('first'), idempotencyKey: 'first' });
      inFlight.catch(() => undefined);
      await blobs.entered.promise;
      const admin = new pg.Client({ connectionString: inject('postgresUrl') });
      await admin.connect();
      try {
        const { rowCount } = await admin.query(
          'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
          [database.name],
        );
        expect(rowCount).toBeGreaterThan(0);
      } finally {
        await admin.end();
      }
      // The server's goodbye reaches the held connection; no listener would crash the process.
      await new Promise((resolve) => setTimeout(resolve, 300));
      blobs.release.resolve();
      await expect(inFlight).rejects.toThrow();
      const again = await store.emit({ producer, content: body('second'), idempotencyKey: 'second' });
      expect(Buffer.from((await store.get(again)).body).toString('utf8')).toBe('second'.repeat(64));
    } finally {
      blobs.release.resolve();
      await store.close();
    }
  });
});
