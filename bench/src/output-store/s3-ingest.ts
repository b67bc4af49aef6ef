import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { SqliteOutputStore } from '@wharf/output-store';
import { S3BlobStore } from '@wharf/output-store/s3';
import type { S3Server } from '@wharf/output-store/testing';
import type { BenchRow } from '../harness.js';

/** Sizes of the S3 ingest benchmark. */
export interface S3IngestSizes {
  /** One streamed EMIT body. */
  bodyBytes: number;
  /** Multipart part size, for the store and the bare upload alike. */
  partSizeBytes: number;
  /** Parts in flight per upload, for both. */
  queueSize: number;
  /** Rounds; each side's best is kept. */
  rounds: number;
}

/** Figures of {@link s3Ingest}: the table row and the directory comparison. */
export interface S3IngestResult {
  row: BenchRow;
  s3MiBPerSecond: number;
  directoryMiBPerSecond: number;
  bareMiBPerSecond: number;
}

async function writeSource(path: string, bytes: number): Promise<void> {
  const handle = await open(path, 'w');
  const block = randomBytes(1 << 20);
  try {
    for (let written = 0; written < bytes; written += block.length) {
      await handle.write(block, 0, Math.min(block.length, bytes - written));
    }
  } finally {
    await handle.close();
  }
}

async function seconds(work: () => Promise<unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - started) / 1e9;
}

/**
 * A streamed EMIT of one large body into SqliteOutputStore + S3BlobStore (spooled, hashed,
 * HEAD, multipart upload, row commit) vs the bare upload of the same file with the AWS SDK
 * (one PutObject below the part size, else a multipart `Upload` with the same part size and
 * queue), and vs SqliteOutputStore with its body directory. Every round writes to a fresh
 * prefix and a fresh database, so no upload is skipped as already present.
 */
export async function s3Ingest(
  server: S3Server,
  directory: string,
  sizes: S3IngestSizes,
): Promise<S3IngestResult> {
  const bucket = 'bench-s3-ingest';
  await server.createBucket(bucket);
  const source = join(directory, 'source.bin');
  await writeSource(source, sizes.bodyBytes);
  const credentials = { accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey };
  const client = new S3Client({
    endpoint: server.endpoint,
    region: server.region,
    forcePathStyle: true,
    credentials,
  });
  const producer = { ownerId: 'bench', runId: 'bench', spawnId: 'bench' };
  let bestS3 = Number.POSITIVE_INFINITY;
  let bestDirectory = Number.POSITIVE_INFINITY;
  let bestBare = Number.POSITIVE_INFINITY;
  try {
    for (let round = 0; round < sizes.rounds; round++) {
      const s3Store = new SqliteOutputStore({
        path: join(directory, `s3-${round}`, 'outputs.db'),
        blobs: new S3BlobStore({
          bucket,
          prefix: `round-${round}`,
          endpoint: server.endpoint,
          region: server.region,
          forcePathStyle: true,
          credentials,
          partSizeBytes: sizes.partSizeBytes,
          queueSize: sizes.queueSize,
        }),
      });
      bestS3 = Math.min(
        bestS3,
        await seconds(() =>
          s3Store.emit({
            producer,
            content: { kind: 'stream', stream: createReadStream(source) },
            idempotencyKey: 'b',
          }),
        ),
      );
      await s3Store.close();

      const directoryStore = new SqliteOutputStore({ path: join(directory, `dir-${round}`, 'outputs.db') });
      bestDirectory = Math.min(
        bestDirectory,
        await seconds(() =>
          directoryStore.emit({
            producer,
            content: { kind: 'stream', stream: createReadStream(source) },
            idempotencyKey: 'b',
          }),
        ),
      );
      await directoryStore.close();

      const key = `bare/round-${round}`;
      bestBare = Math.min(
        bestBare,
        await seconds(async () => {
          if (sizes.bodyBytes < sizes.partSizeBytes) {
            await client.send(
              new PutObjectCommand({
                Bucket: bucket,
                Key: key,
                Body: createReadStream(source),
                ContentLength: sizes.bodyBytes,
              }),
            );
            return;
          }
          await new Upload({
            client,
            params: { Bucket: bucket, Key: key, Body: createReadStream(source, { highWaterMark: 1 << 20 }) },
            partSize: sizes.partSizeBytes,
            queueSize: sizes.queueSize,
          }).done();
        }),
      );
    }
  } finally {
    client.destroy();
  }
  const mib = sizes.bodyBytes / 2 ** 20;
  return {
    row: {
      name: `EMIT ${mib} MiB stream to SQLite+S3 (MiB/s) vs bare SDK upload`,
      ours: mib / bestS3,
      baseline: mib / bestBare,
      target: 0.5,
    },
    s3MiBPerSecond: mib / bestS3,
    directoryMiBPerSecond: mib / bestDirectory,
    bareMiBPerSecond: mib / bestBare,
  };
}
