import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BlobStore } from '../blobs/blob-store.js';
import { SqliteOutputStore } from '../sqlite/sqlite-output-store.js';
import {
  createS3Bucket,
  injectedS3Connection,
  runOutputStoreContract,
  type S3Connection,
} from '../testing/index.js';
import type { Producer } from '../types.js';
import type { S3BlobStore } from './s3-blob-store.js';
import { testS3Blobs } from './s3-test-blobs.test.data.js';

const bucket = 'sqlite-s3-output-store-test';
let connection: S3Connection;

beforeAll(async () => {
  connection = injectedS3Connection();
  await createS3Bucket(connection, bucket);
});

function s3Blobs(prefix: string): S3BlobStore {
  return testS3Blobs(connection, bucket, prefix, { partSizeBytes: 5 * 2 ** 20 });
}

// Every body above 16 bytes goes to S3, so the whole contract exercises the blob path.
runOutputStoreContract(
  'SqliteOutputStore with S3BlobStore',
  (context) =>
    new SqliteOutputStore({
      path: join(context.scratchDir, 'db', 'outputs.db'),
      now: context.now,
      allowedRoots: [context.allowedRoot],
      maxBodyBytes: context.maxBodyBytes,
      inlineThresholdBytes: 16,
      blobs: s3Blobs(`contract/${basename(context.scratchDir)}-${randomBytes(4).toString('hex')}`),
    }),
);

describe('SqliteOutputStore with S3BlobStore', () => {
  const producer: Producer = { ownerId: 'o', runId: 'r', spawnId: 's' };
  let directory: string;
  afterEach(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  async function listed(blobs: S3BlobStore): Promise<string[]> {
    const shas: string[] = [];
    for await (const blob of blobs.list()) shas.push(blob.sha256);
    return shas;
  }

  it('keeps large bodies in the bucket, not beside the database, and removes them with their last output', async () => {
    directory = await mkdtemp(join(tmpdir(), 'wharf-sqlite-s3-'));
    const prefix = `lifecycle-${randomBytes(4).toString('hex')}`;
    const store = new SqliteOutputStore({ path: join(directory, 'outputs.db'), blobs: s3Blobs(prefix) });
    const observer = s3Blobs(prefix);
    try {
      const body = randomBytes(300_000);
      const first = await store.emit({
        producer,
        content: { kind: 'bytes', bytes: body },
        idempotencyKey: 'a',
      });
      const second = await store.emit({
        producer,
        content: { kind: 'bytes', bytes: body },
        idempotencyKey: 'b',
      });
      expect(await listed(observer)).toHaveLength(1);
      expect(Buffer.from((await store.get(first)).body).equals(body)).toBe(true);
      const opened = await store.openBody(second, { start: 1000, end: 2000 });
      const chunks: Buffer[] = [];
      for await (const chunk of opened.stream) chunks.push(Buffer.from(chunk as Uint8Array));
      expect(Buffer.concat(chunks).equals(body.subarray(1000, 2000))).toBe(true);
      // Still referenced by the second output: the blob stays.
      await store.delete(first);
      expect(await listed(observer)).toHaveLength(1);
      await store.delete(second);
      expect(await listed(observer)).toEqual([]);
    } finally {
      await store.close();
      await observer.close();
    }
  });

  it('never loses a body when its last output is deleted while another emit of the same bytes is about to commit', async () => {
    directory = await mkdtemp(join(tmpdir(), 'wharf-sqlite-s3-'));
    const prefix = `race-${randomBytes(4).toString('hex')}`;
    // The real S3 store, held at one point: after an upload (here skipped, the bytes being
    // there) and before the store commits its row, the window a concurrent delete could hit.
    const real = s3Blobs(prefix);
    let uploaded: (() => void) | undefined;
    let release: (() => void) | undefined;
    const held: BlobStore = {
      location: real.location,
      async putFile(sha256, path, sizeBytes) {
        await real.putFile(sha256, path, sizeBytes);
        if (uploaded === undefined) return;
        uploaded();
        await new Promise<void>((resolve) => {
          release = resolve;
        });
      },
      open: (sha256, range) => real.open(sha256, range),
      has: (sha256) => real.has(sha256),
      remove: (sha256) => real.remove(sha256),
      list: () => real.list(),
      claim: (owner) => real.claim(owner),
      close: () => real.close(),
    };
    const store = new SqliteOutputStore({ path: join(directory, 'outputs.db'), blobs: held });
    try {
      const body = randomBytes(100_000);
      const first = await store.emit({
        producer,
        content: { kind: 'bytes', bytes: body },
        idempotencyKey: 'a',
      });
      const atWindow = new Promise<void>((resolve) => {
        uploaded = resolve;
      });
      const second = store.emit({ producer, content: { kind: 'bytes', bytes: body }, idempotencyKey: 'b' });
      await atWindow;
      uploaded = undefined;
      expect(await store.delete(first)).toBe(true);
      release?.();
      const ref = await second;
      expect(Buffer.from((await store.get(ref)).body).equals(body)).toBe(true);
    } finally {
      await store.close();
    }
  });

  it('reports a body missing from the bucket as a storage failure naming the output', async () => {
    directory = await mkdtemp(join(tmpdir(), 'wharf-sqlite-s3-'));
    const prefix = `missing-${randomBytes(4).toString('hex')}`;
    const store = new SqliteOutputStore({ path: join(directory, 'outputs.db'), blobs: s3Blobs(prefix) });
    const observer = s3Blobs(prefix);
    try {
      const ref = await store.emit({
        producer,
        content: { kind: 'text', text: 'x'.repeat(100_000) },
        idempotencyKey: 'k',
      });
      for (const sha256 of await listed(observer)) await observer.remove(sha256);
      const error = await store.get(ref).catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: 'STORAGE_FAILURE' });
      expect((error as Error).message).toContain(ref.outId);
    } finally {
      await store.close();
      await observer.close();
    }
  });
});
