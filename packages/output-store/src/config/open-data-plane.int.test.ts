import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { S3BlobStore } from '../s3/s3-blob-store.js';
import type { SqliteOutputStore } from '../sqlite/sqlite-output-store.js';
import {
  createPostgresDatabase,
  createS3Bucket,
  injectedS3Connection,
  type S3Connection,
} from '../testing/index.js';
import type { OutputStore, Producer } from '../types.js';
import { openDataPlane } from './open-data-plane.js';

const bucket = 'open-data-plane-test';
const producer: Producer = { ownerId: 'o', runId: 'r', spawnId: 's' };
let connection: S3Connection;
let directory: string;

beforeAll(async () => {
  connection = injectedS3Connection();
  await createS3Bucket(connection, bucket);
});
beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'wharf-data-plane-'));
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

async function roundTrip(store: OutputStore, body: Buffer): Promise<void> {
  const ref = await store.emit({ producer, content: { kind: 'bytes', bytes: body }, idempotencyKey: 'k' });
  expect(Buffer.from((await store.get(ref)).body).equals(body)).toBe(true);
}

function bodyFiles(root: string): string[] {
  return readdirSync(root)
    .filter((name) => name.length === 2)
    .flatMap((prefix) => readdirSync(join(root, prefix)));
}

describe('openDataPlane', () => {
  it('opens WHARF_STORE as SQLite with its bodies beside it when WHARF_BLOBS is unset', async () => {
    const path = join(directory, 'outputs.db');
    const plane = await openDataPlane({ env: { WHARF_STORE: `sqlite://${path}` } });
    try {
      expect(plane.storeConfig).toEqual({ kind: 'sqlite', path });
      expect(plane.blobsConfig).toBeUndefined();
      await roundTrip(plane.store, randomBytes(200_000));
      expect(bodyFiles(`${path}.blobs`)).toHaveLength(1);
    } finally {
      await plane.close();
    }
  });

  it('moves the body directory to a file:// WHARF_BLOBS', async () => {
    const path = join(directory, 'db', 'outputs.db');
    const blobs = join(directory, 'bodies');
    const plane = await openDataPlane({ env: { WHARF_STORE: path, WHARF_BLOBS: `file://${blobs}` } });
    try {
      await roundTrip(plane.store, randomBytes(200_000));
      expect(bodyFiles(blobs)).toHaveLength(1);
      expect(existsSync(`${path}.blobs`)).toBe(false);
    } finally {
      await plane.close();
    }
  });

  it('puts bodies in an s3:// bucket, with credentials from the AWS variables', async () => {
    const prefix = `plane-${randomBytes(4).toString('hex')}`;
    const plane = await openDataPlane({
      store: join(directory, 'outputs.db'),
      blobs: `s3://${bucket}/${prefix}?endpoint=${encodeURIComponent(connection.endpoint)}`,
      env: {
        AWS_ACCESS_KEY_ID: connection.accessKeyId,
        AWS_SECRET_ACCESS_KEY: connection.secretAccessKey,
        AWS_REGION: connection.region,
      },
    });
    const observer = new S3BlobStore({
      bucket,
      prefix,
      endpoint: connection.endpoint,
      region: connection.region,
      forcePathStyle: true,
      credentials: connection,
    });
    try {
      expect(plane.blobsConfig).toMatchObject({ kind: 's3', bucket, prefix });
      await roundTrip(plane.store, randomBytes(200_000));
      const stored: string[] = [];
      for await (const blob of observer.list()) stored.push(blob.sha256);
      expect(stored).toHaveLength(1);
    } finally {
      await plane.close();
      await observer.close();
    }
  });

  it('fails at open with the S3 error when the AWS credentials are wrong', async () => {
    const error = await openDataPlane({
      store: join(directory, 'wrong-key.db'),
      blobs: `s3://${bucket}/wrong?endpoint=${encodeURIComponent(connection.endpoint)}`,
      env: { AWS_ACCESS_KEY_ID: connection.accessKeyId, AWS_SECRET_ACCESS_KEY: 'wrong' },
    }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      code: 'STORAGE_FAILURE',
      name: 'StoreConnectionError',
      problem: 'credentials',
    });
    expect((error as Error).message).toContain(`s3://${bucket}/wrong at ${connection.endpoint}`);
    expect((error as Error).message).toMatch(/SignatureDoesNotMatch|InvalidAccessKeyId|AccessDenied/);
  });

  it('opens a postgres:// WHARF_STORE with its bodies in the WHARF_BLOBS directory', async () => {
    const database = await createPostgresDatabase(inject('postgresUrl'), 'data_plane');
    const blobRoot = join(directory, 'pg-blobs');
    try {
      const plane = await openDataPlane({
        env: { WHARF_STORE: database.url, WHARF_BLOBS: `file://${blobRoot}` },
      });
      try {
        expect(plane.storeConfig).toEqual({ kind: 'postgres', url: database.url });
        await roundTrip(plane.store, randomBytes(200_000));
        expect(bodyFiles(blobRoot)).toHaveLength(1);
      } finally {
        await plane.close();
      }
    } finally {
      await database.drop();
    }
  });

  it('commits in a writer thread when WHARF_SQLITE_WRITER_THREAD=1, and refuses a value it does not know', async () => {
    for (const [value, on] of [
      ['1', true],
      ['true', true],
      ['0', false],
      [undefined, false],
    ] as const) {
      const path = join(directory, `outputs-${String(value)}.db`);
      const plane = await openDataPlane({
        env: { WHARF_STORE: path, ...(value === undefined ? {} : { WHARF_SQLITE_WRITER_THREAD: value }) },
      });
      try {
        expect((plane.store as SqliteOutputStore).writerThread, String(value)).toBe(on);
        await roundTrip(plane.store, randomBytes(64));
      } finally {
        await plane.close();
      }
    }
    const refused = join(directory, 'refused.db');
    await expect(
      openDataPlane({ env: { WHARF_STORE: refused, WHARF_SQLITE_WRITER_THREAD: 'yes' } }),
    ).rejects.toThrow('WHARF_SQLITE_WRITER_THREAD');
  });

  it('refuses bad configuration before opening anything, naming the variable and part', async () => {
    await expect(
      openDataPlane({ env: { WHARF_STORE: join(directory, 'x.db'), WHARF_BLOBS: 's3://' } }),
    ).rejects.toMatchObject({
      code: 'INVALID_OPTION',
      variable: 'WHARF_BLOBS',
      part: 'bucket',
    });
    await expect(openDataPlane({ env: { WHARF_STORE: 'redis://cache' } })).rejects.toMatchObject({
      variable: 'WHARF_STORE',
      part: 'scheme',
    });
    await expect(openDataPlane({ env: { WHARF_STORE: 'postgres://db/wharf' } })).rejects.toMatchObject({
      variable: 'WHARF_BLOBS',
    });
    expect(existsSync(join(directory, 'x.db'))).toBe(false);
  });
});
