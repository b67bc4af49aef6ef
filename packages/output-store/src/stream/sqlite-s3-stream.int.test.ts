import { randomBytes } from 'node:crypto';
import { basename, join } from 'node:path';
import { beforeAll } from 'vitest';
import { testS3Blobs } from '../s3/s3-test-blobs.test.data.js';
import { SqliteOutputStore } from '../sqlite/sqlite-output-store.js';
import {
  createS3Bucket,
  injectedS3Connection,
  runStreamContract,
  type S3Connection,
} from '../testing/index.js';

const bucket = 'stream-contract-test';
let connection: S3Connection;

beforeAll(async () => {
  connection = injectedS3Connection();
  await createS3Bucket(connection, bucket);
});

// Every body above 16 bytes (chunks and seals) goes to S3, which cannot append: chunks are objects.
runStreamContract(
  'SqliteOutputStore with S3BlobStore',
  (context) =>
    new SqliteOutputStore({
      path: join(context.scratchDir, 'db', 'outputs.db'),
      now: context.now,
      inlineThresholdBytes: 16,
      blobs: testS3Blobs(
        connection,
        bucket,
        `streams/${basename(context.scratchDir)}-${randomBytes(4).toString('hex')}`,
      ),
    }),
);
