import { BlobStoreClaimedError, StorageFailureError, StoreConnectionError } from '@wharf/output-store';
import { InvalidStoreUrlError } from '@wharf/output-store/config';
import { describe, expect, it } from 'vitest';
import { dataPlaneCliError } from './data-plane-error.js';

describe('dataPlaneCliError', () => {
  it('gives a usable data plane problem its exit code and a hint, and leaves other errors alone', () => {
    const server = 'PostgreSQL server postgres://wharf@db:5432/wharf';
    const cases: [Error, number, RegExp][] = [
      [new StoreConnectionError(server, 'credentials', 'refused'), 2, /user and password in WHARF_STORE/],
      [
        new StoreConnectionError(server, 'missing', 'database "wharf" does not exist'),
        3,
        /create the database/,
      ],
      [new StoreConnectionError(server, 'unreachable', 'no server answers'), 4, /host and port/],
      [new StoreConnectionError('s3://b/p', 'missing', 'no bucket'), 3, /create the bucket/],
      [new StoreConnectionError('s3://b/p', 'credentials', 'refused'), 2, /AWS_SECRET_ACCESS_KEY/],
      [new InvalidStoreUrlError('WHARF_BLOBS', 'value', 'is required'), 2, /WHARF_BLOBS/],
      [new BlobStoreClaimedError('s3://b/p', { storeId: 'x', store: 'the other' }), 2, /the other/],
    ];
    for (const [error, exitCode, message] of cases) {
      const mapped = dataPlaneCliError(error);
      expect(mapped?.exitCode, error.message).toBe(exitCode);
      expect(mapped?.message).toMatch(message);
    }
    expect(dataPlaneCliError(new StorageFailureError('disk full'))).toBeUndefined();
    expect(dataPlaneCliError(new Error('x'))).toBeUndefined();
  });
});
