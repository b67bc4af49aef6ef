import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, inject } from 'vitest';
import { LocalBlobStore } from '../blobs/local-blob-store.js';
import { PostgresOutputStore } from '../postgres/postgres-output-store.js';
import { createPostgresDatabase, type PostgresDatabase, runStreamContract } from '../testing/index.js';

let database: PostgresDatabase;
beforeAll(async () => {
  database = await createPostgresDatabase(inject('postgresUrl'), 'streams');
});
afterAll(async () => {
  await database?.drop();
});

// A schema and a blob directory per test; a 1 KiB inline threshold sends the larger chunks and
// seals through the blob store, as S3 bodies go.
runStreamContract('PostgresOutputStore', (context) =>
  PostgresOutputStore.open({
    connectionString: database.url,
    schema: `streams_${randomBytes(5).toString('hex')}`,
    blobs: new LocalBlobStore({ root: join(context.scratchDir, 'blobs') }),
    inlineThresholdBytes: 1024,
    now: context.now,
    maxConnections: 4,
  }),
);
