import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import {
  createPostgresDatabase,
  createS3Bucket,
  injectedS3Connection,
  type PostgresDatabase,
  type S3Connection,
} from '@wharf/output-store/testing';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadWorkerConfig } from './config.js';
import { startWorker } from './start-worker.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Set by the repository's global setup (test/src/global-setup.ts). */
    postgresUrl: string;
  }
}

const execFileAsync = promisify(execFile);
const workerMain = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const bucket = 'wharf-worker-data-plane';

/** Starts the real worker process with this environment; answers how it ended. */
async function runWorker(env: Record<string, string>): Promise<{ code: number; stderr: string }> {
  try {
    await execFileAsync(process.execPath, [workerMain], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'error', ...env },
      timeout: 60_000,
    });
    return { code: 0, stderr: '' };
  } catch (error) {
    const failed = error as { code: number; stderr: string };
    return { code: failed.code, stderr: failed.stderr };
  }
}

describe('the worker checks its data plane before it takes work', () => {
  let database: PostgresDatabase;
  let s3: S3Connection;
  let dir: string;
  beforeAll(async () => {
    database = await createPostgresDatabase(inject('postgresUrl'), 'worker_plane');
    s3 = injectedS3Connection();
    await createS3Bucket(s3, bucket);
    dir = await mkdtemp(join(tmpdir(), 'wharf-worker-plane-'));
  });
  afterAll(async () => {
    await database?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  const env = (blobs: string, secret?: string) => ({
    // No Temporal server answers here: the data plane is checked before Temporal is reached.
    TEMPORAL_ADDRESS: '127.0.0.1:1',
    WHARF_DATA_DIR: join(dir, 'worker'),
    WHARF_HEALTH_PORT: '0',
    WHARF_STORE: database.url,
    WHARF_BLOBS: `${blobs}?endpoint=${encodeURIComponent(s3.endpoint)}`,
    AWS_ACCESS_KEY_ID: s3.accessKeyId,
    AWS_SECRET_ACCESS_KEY: secret ?? s3.secretAccessKey,
  });

  it('exits 1 naming the bucket when it does not exist', async () => {
    const { code, stderr } = await runWorker(env('s3://no-such-bucket-at-all/outputs'));
    expect(code).toBe(1);
    expect(stderr).toContain(
      'the data plane cannot be used (check WHARF_BLOBS, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY)',
    );
    expect(stderr).toContain('the bucket no-such-bucket-at-all does not exist');
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it('exits 1 naming the bucket when the S3 secret is wrong, never printing it', async () => {
    const { code, stderr } = await runWorker(env(`s3://${bucket}/outputs`, 'a-wrong-secret-key'));
    expect(code).toBe(1);
    expect(stderr).toContain('the data plane cannot be used');
    expect(stderr).toContain(`s3://${bucket}/outputs`);
    expect(stderr).toContain('refused the AWS credentials');
    expect(stderr).not.toMatch(/\n\s+at /);
    expect(stderr).not.toContain('a-wrong-secret-key');
  });

  it('rejects with DATA_PLANE_UNAVAILABLE naming PostgreSQL when its database is missing', async () => {
    const url = new URL(database.url);
    url.pathname = '/no_such_database';
    const error = await startWorker(
      loadWorkerConfig({ ...env(`s3://${bucket}/outputs`), WHARF_STORE: url.toString() }),
      pino({ level: 'silent' }),
    ).catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      code: 'DATA_PLANE_UNAVAILABLE',
      variables: ['WHARF_STORE', 'WHARF_BLOBS'],
    });
    expect((error as Error).message).toContain('database "no_such_database" does not exist');
  });
});
