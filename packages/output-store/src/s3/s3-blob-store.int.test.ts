import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BlobNotFoundError, StorageFailureError, StoreConnectionError } from '../errors.js';
import {
  createS3Bucket,
  injectedS3Connection,
  runBlobStoreContract,
  type S3Connection,
} from '../testing/index.js';
import { S3BlobStore, type S3BlobStoreOptions } from './s3-blob-store.js';

const bucket = 's3-blob-store-test';
const partSizeBytes = 5 * 2 ** 20;
let connection: S3Connection;
let scratch: string;
let blobs: S3BlobStore;
let counter = 0;

function storeOptions(extra: Partial<S3BlobStoreOptions> = {}): S3BlobStoreOptions {
  return {
    bucket,
    prefix: `run-${process.pid}`,
    endpoint: connection.endpoint,
    region: connection.region,
    forcePathStyle: true,
    credentials: { accessKeyId: connection.accessKeyId, secretAccessKey: connection.secretAccessKey },
    partSizeBytes,
    ...extra,
  };
}

/** Writes `bytes` to a fresh spool file, as an output store would before `putFile`. */
async function spool(bytes: Uint8Array): Promise<{ sha256: string; path: string }> {
  counter += 1;
  const path = join(scratch, `spool-${counter}.part`);
  await writeFile(path, bytes);
  return { sha256: createHash('sha256').update(bytes).digest('hex'), path };
}

async function put(store: S3BlobStore, bytes: Uint8Array): Promise<string> {
  const { sha256, path } = await spool(bytes);
  await store.putFile(sha256, path, bytes.byteLength);
  return sha256;
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

async function listAll(store: S3BlobStore): Promise<string[]> {
  const shas: string[] = [];
  for await (const blob of store.list()) shas.push(blob.sha256);
  return shas.sort();
}

beforeAll(async () => {
  connection = injectedS3Connection();
  await createS3Bucket(connection, bucket);
});

// The behaviour every blob store shares, each test under a prefix of its own.
runBlobStoreContract(
  'S3BlobStore',
  (context) => new S3BlobStore(storeOptions({ prefix: context.namespace })),
);

beforeEach(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'wharf-s3-blobs-'));
  blobs = new S3BlobStore(storeOptions({ prefix: `test-${process.pid}-${Date.now()}-${counter}` }));
});

afterEach(async () => {
  await blobs.close();
  await rm(scratch, { recursive: true, force: true });
});

describe('S3BlobStore', () => {
  it('stores a body under its address, consumes the spool file, and reads it back', async () => {
    const body = randomBytes(70_000);
    const { sha256, path } = await spool(body);
    expect(await blobs.has(sha256)).toBe(false);
    await blobs.putFile(sha256, path, body.byteLength);
    expect(existsSync(path)).toBe(false);
    expect(await blobs.has(sha256)).toBe(true);
    expect((await readAll(await blobs.open(sha256))).equals(body)).toBe(true);
    expect(blobs.location).toMatch(/^s3:\/\/s3-blob-store-test\/test-/);
  });

  it('serves byte ranges, including an empty one and the last byte', async () => {
    const body = randomBytes(10_000);
    const sha256 = await put(blobs, body);
    expect(
      (await readAll(await blobs.open(sha256, { start: 100, end: 2_100 }))).equals(body.subarray(100, 2_100)),
    ).toBe(true);
    expect(
      (await readAll(await blobs.open(sha256, { start: 9_999, end: 10_000 }))).equals(body.subarray(9_999)),
    ).toBe(true);
    expect((await readAll(await blobs.open(sha256, { start: 500, end: 500 }))).byteLength).toBe(0);
    expect((await readAll(await blobs.open(sha256, { start: 10_000, end: 10_000 }))).byteLength).toBe(0);
  });

  it('refuses ranges past the end with INVALID_RANGE naming the size, where S3 itself would clip', async () => {
    const sha256 = await put(blobs, randomBytes(10_000));
    for (const range of [
      { start: 0, end: 10_001 },
      { start: 9_000, end: 20_000 },
      { start: 10_001, end: 10_001 },
      { start: 20_000, end: 30_000 },
      { start: 5, end: 4 },
    ]) {
      const error = await blobs.open(sha256, range).catch((caught: unknown) => caught);
      expect(error, JSON.stringify(range)).toMatchObject({ code: 'INVALID_RANGE', sizeBytes: 10_000 });
    }
  });

  it('round-trips an empty body', async () => {
    const sha256 = await put(blobs, new Uint8Array(0));
    expect(await blobs.has(sha256)).toBe(true);
    expect((await readAll(await blobs.open(sha256))).byteLength).toBe(0);
  });

  it('refuses a size that does not match the file, consuming it and storing nothing', async () => {
    const body = Buffer.from('sixteen bytes!!!');
    const { sha256, path } = await spool(body);
    await expect(blobs.putFile(sha256, path, body.byteLength + 1)).rejects.toMatchObject({
      code: 'INVALID_EVENT',
      field: 'sizeBytes',
    });
    expect(existsSync(path)).toBe(false);
    expect(await listAll(blobs)).toEqual([]);
  });

  it('refuses unusable options with a typed error naming the option', () => {
    expect(() => new S3BlobStore(storeOptions({ partSizeBytes: 2 ** 20 }))).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTION', option: 'partSizeBytes' }),
    );
    expect(() => new S3BlobStore(storeOptions({ queueSize: 0 }))).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTION', option: 'queueSize' }),
    );
    expect(() => new S3BlobStore(storeOptions({ bucket: '' }))).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTION', option: 'bucket' }),
    );
  });

  it('keys objects <prefix>/ab/<sha256> and lists exactly the stored addresses across pages', async () => {
    const shas = await Promise.all(
      Array.from({ length: 5 }, (_, index) => put(blobs, Buffer.from(`body ${index}`))),
    );
    expect(await listAll(blobs)).toEqual([...shas].sort());
    const [first] = shas;
    expect(blobs.keyOf(first ?? '')).toMatch(new RegExp(`^test-[^/]+/${first?.slice(0, 2)}/${first}$`));
    // Another prefix in the same bucket sees none of them.
    const other = new S3BlobStore(storeOptions({ prefix: `other-${Date.now()}` }));
    try {
      expect(await listAll(other)).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it('paginates ListObjectsV2 past one page of 1000 keys', async () => {
    const many = Array.from({ length: 1_005 }, (_, index) => Buffer.from(`page body ${index}`));
    const expected: string[] = [];
    for (let offset = 0; offset < many.length; offset += 50) {
      expected.push(...(await Promise.all(many.slice(offset, offset + 50).map((body) => put(blobs, body)))));
    }
    const listed = await listAll(blobs);
    expect(listed).toHaveLength(1_005);
    expect(listed).toEqual(expected.sort());
  });

  it('removes a body, and removing a missing one is fine', async () => {
    const sha256 = await put(blobs, Buffer.from('to be removed'));
    await blobs.remove(sha256);
    expect(await blobs.has(sha256)).toBe(false);
    await blobs.remove(sha256);
    expect(await listAll(blobs)).toEqual([]);
  });

  it('answers a missing address with a typed BlobNotFoundError naming it', async () => {
    const missing = 'ab'.repeat(32);
    const error = await blobs.open(missing).catch((caught: unknown) => caught);
    expect(BlobNotFoundError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'BLOB_NOT_FOUND', sha256: missing });
    expect((error as Error).message).toContain(blobs.location);
    const empty = await blobs.open(missing, { start: 0, end: 0 }).catch((caught: unknown) => caught);
    expect(BlobNotFoundError.isInstance(empty)).toBe(true);
  });

  it('refuses an address that is not a SHA-256', async () => {
    await expect(blobs.has('../../etc/passwd')).rejects.toMatchObject({ code: 'INVALID_EVENT' });
  });

  it('treats a second put of the same address as a no-op and still consumes its file', async () => {
    const body = Buffer.from('same bytes twice');
    const sha256 = await put(blobs, body);
    const again = await spool(body);
    await blobs.putFile(again.sha256, again.path, body.byteLength);
    expect(existsSync(again.path)).toBe(false);
    expect((await readAll(await blobs.open(sha256))).equals(body)).toBe(true);
    expect(await listAll(blobs)).toEqual([sha256]);
  });

  it('lets concurrent puts of one address, from two stores, all succeed with one intact body', async () => {
    const body = randomBytes(6 * 2 ** 20);
    const second = new S3BlobStore(storeOptions({ prefix: blobs.location.split('/').slice(3).join('/') }));
    try {
      const files = await Promise.all(Array.from({ length: 4 }, () => spool(body)));
      await Promise.all(
        files.map((file, index) =>
          (index % 2 === 0 ? blobs : second).putFile(file.sha256, file.path, body.byteLength),
        ),
      );
      for (const file of files) expect(existsSync(file.path)).toBe(false);
      const sha256 = files[0]?.sha256 ?? '';
      expect((await readAll(await second.open(sha256))).equals(body)).toBe(true);
      expect(await listAll(blobs)).toEqual([sha256]);
    } finally {
      await second.close();
    }
  });

  it('uploads a body larger than the part size as a multipart upload and reads ranges across parts', async () => {
    const body = randomBytes(12 * 2 ** 20);
    const sha256 = await put(blobs, body);
    expect((await readAll(await blobs.open(sha256))).equals(body)).toBe(true);
    // Spans the boundary between part 1 and part 2, and between part 2 and part 3.
    const start = partSizeBytes - 1_000;
    const end = 2 * partSizeBytes + 1_000;
    expect((await readAll(await blobs.open(sha256, { start, end }))).equals(body.subarray(start, end))).toBe(
      true,
    );
    // A multipart object's ETag is "<md5 of part md5s>-<part count>": proof it went up in parts.
    const { HeadObjectCommand, S3Client } = await import('@aws-sdk/client-s3');
    const client = new S3Client({
      endpoint: connection.endpoint,
      region: connection.region,
      forcePathStyle: true,
      credentials: { accessKeyId: connection.accessKeyId, secretAccessKey: connection.secretAccessKey },
    });
    try {
      const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: blobs.keyOf(sha256) }));
      expect(head.ETag).toMatch(/-3"?$/);
      expect(head.ContentLength).toBe(body.byteLength);
    } finally {
      client.destroy();
    }
  });

  it('turns wrong credentials into a StorageFailureError naming the bucket and key, and keeps the spool file consumed', async () => {
    const wrong = new S3BlobStore(
      storeOptions({
        credentials: { accessKeyId: connection.accessKeyId, secretAccessKey: 'not-the-secret' },
      }),
    );
    try {
      const { sha256, path } = await spool(Buffer.from('never stored'));
      const error = await wrong.putFile(sha256, path, 12).catch((caught: unknown) => caught);
      expect(StorageFailureError.isInstance(error)).toBe(true);
      expect(String((error as Error).message)).toContain(`s3://${bucket}/${wrong.keyOf(sha256)}`);
      expect(existsSync(path)).toBe(false);
      await expect(wrong.open(sha256)).rejects.toMatchObject({ code: 'STORAGE_FAILURE' });
      expect(await blobs.has(sha256)).toBe(false);
    } finally {
      await wrong.close();
    }
  });

  it('reports a missing bucket as a storage failure, not as an absent body', async () => {
    const nowhere = new S3BlobStore(storeOptions({ bucket: 'no-such-bucket-here' }));
    try {
      const error = await nowhere.open('cd'.repeat(32)).catch((caught: unknown) => caught);
      expect(StorageFailureError.isInstance(error)).toBe(true);
      expect((error as Error).message).toContain('s3://no-such-bucket-here/');
    } finally {
      await nowhere.close();
    }
  });

  it('names the server when none answers at its endpoint (a stopped S3 service), as a StoreConnectionError', async () => {
    // A port nothing listens on: the endpoint of a service that is down.
    const { createServer } = await import('node:net');
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as { port: number };
    await new Promise((resolve) => probe.close(resolve));
    const down = new S3BlobStore(storeOptions({ endpoint: `http://127.0.0.1:${port}` }));
    try {
      const error = await down.has('ab'.repeat(32)).catch((caught: unknown) => caught);
      expect(StoreConnectionError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ code: 'STORAGE_FAILURE', problem: 'unreachable' });
      expect((error as Error).message).toMatch(
        new RegExp(
          `^cannot use s3://${bucket}/run-\\d+ at http://127\\.0\\.0\\.1:${port}: no server answers \\(.+\\) — cannot inspect s3://${bucket}/`,
        ),
      );
    } finally {
      await down.close();
    }
  });

  it('fails every call after close', async () => {
    await blobs.close();
    await expect(blobs.has('ef'.repeat(32))).rejects.toMatchObject({ code: 'STORAGE_FAILURE' });
  });
});
