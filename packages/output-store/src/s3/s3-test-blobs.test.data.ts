import type { S3Connection } from '../testing/index.js';
import { S3BlobStore, type S3BlobStoreOptions } from './s3-blob-store.js';

/** An `S3BlobStore` on the test run's S3 server (versitygw), in `bucket` under `prefix`. */
export function testS3Blobs(
  connection: S3Connection,
  bucket: string,
  prefix: string,
  overrides: Partial<S3BlobStoreOptions> = {},
): S3BlobStore {
  return new S3BlobStore({
    bucket,
    prefix,
    endpoint: connection.endpoint,
    region: connection.region,
    forcePathStyle: true,
    credentials: { accessKeyId: connection.accessKeyId, secretAccessKey: connection.secretAccessKey },
    ...overrides,
  });
}
