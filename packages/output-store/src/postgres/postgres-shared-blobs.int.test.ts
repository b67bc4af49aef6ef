import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DeleteObjectCommand, GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { storeMarkerName } from '../blobs/store-marker.js';
import { BlobStoreClaimedError, BlobStoreUnmarkedError } from '../errors.js';
import { testS3Blobs } from '../s3/s3-test-blobs.test.data.js';
import { SqliteOutputStore } from '../sqlite/sqlite-output-store.js';
import {
  createPostgresDatabase,
  createS3Bucket,
  injectedS3Connection,
  type PostgresDatabase,
  type S3Connection,
} from '../testing/index.js';
import type { OutputRef } from '../types.js';
import { PostgresOutputStore } from './postgres-output-store.js';

const configEntry = fileURLToPath(new URL('../../dist/config/index.js', import.meta.url));
const bucket = 'postgres-shared-blobs-test';
let first: PostgresDatabase;
let second: PostgresDatabase;
let connection: S3Connection;
let scratch: string;

beforeAll(async () => {
  [first, second] = await Promise.all([
    createPostgresDatabase(inject('postgresUrl'), 'shared_a'),
    createPostgresDatabase(inject('postgresUrl'), 'shared_b'),
  ]);
  connection = injectedS3Connection();
  await createS3Bucket(connection, bucket);
  scratch = await mkdtemp(join(tmpdir(), 'wharf-pg-shared-'));
});
afterAll(async () => {
  await first?.drop();
  await second?.drop();
  await rm(scratch, { recursive: true, force: true });
});

/** Opens the data plane from `WHARF_STORE` / `WHARF_BLOBS` in a process of its own and runs `gc()`. */
function gcInAnotherProcess(store: string, blobs: string): Promise<{ code: number | null; output: string }> {
  const script = `
const { openDataPlane } = await import(process.argv[1]);
const plane = await openDataPlane();
console.log(JSON.stringify(await plane.store.gc()));
await plane.close();
`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script, configEntry], {
    env: {
      ...process.env,
      WHARF_STORE: store,
      WHARF_BLOBS: blobs,
      AWS_ACCESS_KEY_ID: connection.accessKeyId,
      AWS_SECRET_ACCESS_KEY: connection.secretAccessKey,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, output })));
}

/** Runs `work` with an S3 client of the test server. */
async function withS3<TResult>(work: (client: S3Client) => Promise<TResult>): Promise<TResult> {
  const client = new S3Client({
    endpoint: connection.endpoint,
    region: connection.region,
    forcePathStyle: true,
    credentials: { accessKeyId: connection.accessKeyId, secretAccessKey: connection.secretAccessKey },
  });
  try {
    return await work(client);
  } finally {
    client.destroy();
  }
}

/** The text of the prefix's `wharf-store.json` marker, if any. */
function readMarker(prefix: string): Promise<string | undefined> {
  return withS3(async (client) => {
    try {
      const response = await client.send(
        new GetObjectCommand({ Bucket: bucket, Key: `${prefix}/${storeMarkerName}` }),
      );
      return await response.Body?.transformToString('utf8');
    } catch (error) {
      if ((error as { name?: unknown }).name === 'NoSuchKey') return undefined;
      throw error;
    }
  });
}

/** Deletes the prefix's marker, as someone cleaning the bucket by hand might. */
function deleteMarker(prefix: string): Promise<unknown> {
  return withS3((client) =>
    client.send(new DeleteObjectCommand({ Bucket: bucket, Key: `${prefix}/${storeMarkerName}` })),
  );
}

describe('two output stores on one S3 bucket prefix', () => {
  it('refuses the second store, in any process, and the first keeps every body', async () => {
    const prefix = `shared-${randomBytes(4).toString('hex')}`;
    const store = await PostgresOutputStore.open({
      connectionString: first.url,
      blobs: testS3Blobs(connection, bucket, prefix),
    });
    const bodies = new Map<string, Buffer>();
    const refs: OutputRef[] = [];
    try {
      for (let index = 0; index < 26; index++) {
        const body = randomBytes(70_000 + index);
        const ref = await store.emit({
          producer: { ownerId: 'o', runId: 'r', spawnId: 's' },
          content: { kind: 'bytes', bytes: body },
          idempotencyKey: `k${index}`,
        });
        refs.push(ref);
        bodies.set(ref.outId, body);
      }
      // An empty second store (another database) configured onto the same prefix, and its gc.
      const blobsUrl = `s3://${bucket}/${prefix}?endpoint=${encodeURIComponent(connection.endpoint)}`;
      const other = await gcInAnotherProcess(second.url, blobsUrl);
      expect(other.code).not.toBe(0);
      expect(other.output).toContain('holds the bodies of another Wharf output store');
      expect(other.output).toContain(`database "${first.name}" schema "wharf"`);
      // A SQLite store on the same prefix is refused too.
      const sqlite = new SqliteOutputStore({
        path: join(scratch, 'other.db'),
        blobs: testS3Blobs(connection, bucket, prefix),
      });
      const refused = await sqlite.ready().catch((caught: unknown) => caught);
      await sqlite.close();
      expect(BlobStoreClaimedError.isInstance(refused)).toBe(true);
      // Nothing of the first store is lost, and its own gc finds nothing to remove.
      expect(await store.gc()).toEqual({
        removed: 0,
        freedBytes: 0,
        orphanBodies: { removed: 0, freedBytes: 0 },
      });
      for (const ref of refs) {
        expect(Buffer.from((await store.get(ref)).body).equals(bodies.get(ref.outId) as Buffer)).toBe(true);
      }
    } finally {
      await store.close();
    }
  });

  it('sweeps only its own unreferenced bodies older than the grace period', async () => {
    const prefix = `orphans-${randomBytes(4).toString('hex')}`;
    const schema = `orphans_${randomBytes(4).toString('hex')}`;
    const open = (now?: () => number) =>
      PostgresOutputStore.open({
        connectionString: first.url,
        schema,
        blobs: testS3Blobs(connection, bucket, prefix),
        ...(now === undefined ? {} : { now }),
      });
    const store = await open();
    try {
      const kept = await store.emit({
        producer: { ownerId: 'o', runId: 'r', spawnId: 's' },
        content: { kind: 'bytes', bytes: randomBytes(80_000) },
        idempotencyKey: 'kept',
      });
      // A body an EMIT uploaded and then died before committing its row.
      const orphan = randomBytes(90_000);
      const orphanSha = createHash('sha256').update(orphan).digest('hex');
      const path = join(scratch, 'orphan.part');
      await writeFile(path, orphan);
      const blobs = testS3Blobs(connection, bucket, prefix);
      await blobs.putFile(orphanSha, path, orphan.length);
      // Fresh: it may be an EMIT on its way, so it stays (gc, then the sweep itself).
      await store.gc();
      expect(await blobs.has(orphanSha)).toBe(true);
      expect(await store.sweepOrphanBodies({ dryRun: true, graceMs: 0 })).toEqual({
        removed: 1,
        freedBytes: orphan.length,
      });
      expect(await blobs.has(orphanSha)).toBe(true);
      // Two hours on, the same store's sweep removes it, and only it.
      const later = await open(() => Date.now() + 2 * 3_600_000);
      try {
        expect(await later.sweepOrphanBodies()).toEqual({ removed: 1, freedBytes: orphan.length });
      } finally {
        await later.close();
      }
      expect(await blobs.has(orphanSha)).toBe(false);
      expect((await store.get(kept)).record.sizeBytes).toBe(80_000);
      await blobs.close();
    } finally {
      await store.close();
    }
  });
});

describe('a store whose blob store marker was deleted', () => {
  it('keeps every body from a second store, and restores its own marker', async () => {
    const prefix = `unmarked-${randomBytes(4).toString('hex')}`;
    const blobs = testS3Blobs(connection, bucket, prefix);
    const open = (database: PostgresDatabase) =>
      PostgresOutputStore.open({
        connectionString: database.url,
        schema: 'unmarked',
        blobs: testS3Blobs(connection, bucket, prefix),
      });
    const store = await open(first);
    const refs: OutputRef[] = [];
    try {
      for (let index = 0; index < 10; index++) {
        refs.push(
          await store.emit({
            producer: { ownerId: 'o', runId: 'unmarked', spawnId: 's' },
            content: { kind: 'bytes', bytes: randomBytes(70_000 + index) },
            idempotencyKey: `k${index}`,
          }),
        );
      }
      const marker = await readMarker(prefix);
      await deleteMarker(prefix);

      // A second store (another database) configured onto the prefix is refused, naming it.
      const refused = await open(second).catch((caught: unknown) => caught);
      expect(BlobStoreUnmarkedError.isInstance(refused)).toBe(true);
      expect(refused).toMatchObject({ code: 'INVALID_OPTION', location: blobs.location });
      expect((refused as Error).message).toContain(blobs.location);
      expect(await readMarker(prefix)).toBeUndefined();
      let held = 0;
      for await (const _blob of blobs.list()) held += 1;
      expect(held).toBe(10);

      // The first store's gc proves the bodies its own and writes its marker again.
      expect((await store.gc({ orphanGraceMs: 0 })).orphanBodies.removed).toBe(0);
      expect(JSON.parse((await readMarker(prefix)) ?? '{}')).toMatchObject({
        storeId: JSON.parse(marker ?? '{}').storeId,
      });
      for (const ref of refs) expect((await store.stat(ref)).outId).toBe(ref.outId);

      // And a store opening after a deletion does it on open.
      await deleteMarker(prefix);
      const reopened = await open(first);
      await reopened.close();
      expect(JSON.parse((await readMarker(prefix)) ?? '{}')).toMatchObject({
        storeId: JSON.parse(marker ?? '{}').storeId,
      });
      expect(BlobStoreClaimedError.isInstance(await open(second).catch((caught: unknown) => caught))).toBe(
        true,
      );
    } finally {
      await store.close();
      await blobs.close();
    }
  });
});
