import { inject } from 'vitest';
import type { S3Connection } from './s3-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The S3 server a vitest global setup provides (Wharf's own: `test/src/global-setup.ts`). */
    s3Connection: S3Connection;
    /** Why it has none, else empty. */
    s3Error: string;
  }
}

/**
 * The S3 server the vitest global setup provided for this run (`s3Connection`), or an error
 * saying why there is none (`s3Error`: versitygw not built, say). Each test file should then
 * create a bucket of its own with `createS3Bucket`.
 *
 * @example
 * ```ts
 * beforeAll(async () => {
 *   connection = injectedS3Connection();
 *   await createS3Bucket(connection, 'my-test-file');
 * });
 * ```
 */
export function injectedS3Connection(): S3Connection {
  const error = inject('s3Error');
  if (error !== '') throw new Error(error);
  return inject('s3Connection');
}
