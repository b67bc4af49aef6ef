import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { S3BlobStore } from '@wharf/output-store/s3';
import {
  createPostgresDatabase,
  createS3Bucket,
  injectedS3Connection,
  type PostgresDatabase,
  type PostgresServer,
  type S3Connection,
  startPostgresServer,
} from '@wharf/output-store/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { wharfCliPath } from './wharf-cli.js';

const execFileAsync = promisify(execFile);
const BUCKET = 'wharf-cli-data-plane';

/** Runs the real `wharf` with exactly this environment (plus PATH and HOME). */
async function wharf(args: string[], cwd: string, env: Record<string, string>) {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, [wharfCliPath, ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

describe('wharf on a shared data plane: connection errors, status and gc', () => {
  let database: PostgresDatabase;
  let locked: PostgresServer;
  let s3: S3Connection;
  let dir: string;
  let s3Env: Record<string, string>;
  let blobsUrl: string;
  const prefix = `cli-${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wharf-cli-data-plane-'));
    database = await createPostgresDatabase(inject('postgresUrl'), 'cli_plane');
    s3 = injectedS3Connection();
    await createS3Bucket(s3, BUCKET);
    s3Env = { AWS_ACCESS_KEY_ID: s3.accessKeyId, AWS_SECRET_ACCESS_KEY: s3.secretAccessKey };
    blobsUrl = `s3://${BUCKET}/${prefix}?endpoint=${encodeURIComponent(s3.endpoint)}`;
    // A server of its own that checks passwords (the shared test server trusts everyone).
    locked = await startPostgresServer({ settings: { fsync: 'off' } });
    const pg = createRequire(import.meta.resolve('@wharf/output-store/postgres'))('pg') as {
      Client: new (options: {
        connectionString: string;
      }) => {
        connect(): Promise<void>;
        query(sql: string): Promise<unknown>;
        end(): Promise<void>;
      };
    };
    const hba = join(locked.dataDir, 'pg_hba.conf');
    await writeFile(hba, `host all wharf_locked 127.0.0.1/32 scram-sha-256\n${await readFile(hba, 'utf8')}`);
    const admin = new pg.Client({ connectionString: locked.url });
    await admin.connect();
    await admin.query("CREATE ROLE wharf_locked LOGIN PASSWORD 'the-right-password'");
    await admin.query('CREATE DATABASE locked OWNER wharf_locked');
    await admin.query('SELECT pg_reload_conf()');
    await admin.end();
  });
  afterAll(async () => {
    await locked?.stop();
    await database?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  it('connects in wharf status and says so, and refuses what the other commands refuse', async () => {
    const env = { ...s3Env, WHARF_STORE: database.url, WHARF_BLOBS: blobsUrl };
    // No Temporal server answers here: the data plane is checked and shown all the same, then
    // status exits 4 naming what failed.
    const status = await wharf(['status'], dir, {
      ...env,
      TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}`,
    });
    expect(status.code, status.stderr).toBe(4);
    expect(status.stderr).toContain('wharf: Temporal failed the check: no Temporal server at 127.0.0.1:');
    expect(status.stdout).toContain(`blobs:    s3://${BUCKET}/${prefix}`);
    expect(status.stdout).toContain(
      'status:   connected; the store answered, the blob store took, gave back and removed a probe body',
    );
    // A PostgreSQL store without a blob store opens nowhere: status says so as run would.
    const noBlobs = await wharf(['status'], dir, { WHARF_STORE: database.url });
    expect(noBlobs.code).toBe(2);
    expect(noBlobs.stderr).toContain('WHARF_BLOBS');
    expect(noBlobs.stdout).not.toContain('bodies stay in the database');
  });

  it('exits 4, 3 or 2 naming the host, never the password, when PostgreSQL cannot be used', async () => {
    const port = await freePort();
    const shared = new URL(database.url);
    const cases: [what: string, url: string, code: number, says: RegExp][] = [
      [
        'no server',
        `postgresql://wharf:s3cret-one@127.0.0.1:${port}/wharf`,
        4,
        new RegExp(`127\\.0\\.0\\.1:${port}.*no server answers`),
      ],
      [
        'no database',
        `postgresql://postgres:s3cret-two@${shared.host}/no_such_database`,
        3,
        new RegExp(`${shared.host.replace(/\./g, '\\.')}/no_such_database.*does not exist`),
      ],
      [
        'a wrong password',
        `postgresql://wharf_locked:s3cret-wrong@127.0.0.1:${locked.port}/postgres`,
        2,
        new RegExp(`wharf_locked@127\\.0\\.0\\.1:${locked.port}.*refused the credentials`),
      ],
    ];
    for (const [what, url, code, says] of cases) {
      for (const command of [['outputs', 'list'], ['status']]) {
        const run = await wharf([...command, '--data-dir', join(dir, 'errors')], dir, {
          ...s3Env,
          WHARF_STORE: url,
          WHARF_BLOBS: blobsUrl,
        });
        expect(run.code, `${what}: wharf ${command.join(' ')}: ${run.stderr}`).toBe(code);
        expect(run.stderr, what).toMatch(says);
        expect(run.stderr, what).not.toMatch(/s3cret/);
        expect(run.stderr, what).not.toContain('unexpected error');
      }
    }
    // The right password works.
    const right = await wharf(['status'], dir, {
      ...s3Env,
      WHARF_STORE: `postgresql://wharf_locked:the-right-password@127.0.0.1:${locked.port}/locked`,
      WHARF_BLOBS: `file://${join(dir, 'locked-blobs')}`,
      TEMPORAL_ADDRESS: `127.0.0.1:${port}`,
    });
    expect(right.code, right.stderr).toBe(4); // the store answered; no Temporal server does
    expect(right.stdout).toContain('status:   connected');
    // The right password, without the right to create the store's schema: a configuration to fix.
    const unprivileged = await wharf(['status'], dir, {
      ...s3Env,
      WHARF_STORE: `postgresql://wharf_locked:the-right-password@127.0.0.1:${locked.port}/postgres`,
      WHARF_BLOBS: `file://${join(dir, 'locked-blobs-2')}`,
    });
    expect(unprivileged.code, unprivileged.stderr).toBe(2);
    expect(unprivileged.stderr).toMatch(/may not create.*permission denied/);
  });

  it('exits 3 for a missing bucket and 2 for a wrong S3 secret, naming the bucket, never the secret', async () => {
    const env = { ...s3Env, WHARF_STORE: database.url };
    const noBucket = await wharf(['status'], dir, {
      ...env,
      WHARF_BLOBS: `s3://no-such-bucket-here/${prefix}?endpoint=${encodeURIComponent(s3.endpoint)}`,
    });
    expect(noBucket.code, noBucket.stderr).toBe(3);
    expect(noBucket.stderr).toContain('the bucket no-such-bucket-here does not exist');
    const wrongKey = await wharf(['outputs', 'list'], dir, {
      ...env,
      AWS_SECRET_ACCESS_KEY: 'not-the-secret-key',
      WHARF_BLOBS: blobsUrl,
    });
    expect(wrongKey.code, wrongKey.stderr).toBe(2);
    expect(wrongKey.stderr).toContain(`s3://${BUCKET}/${prefix}`);
    expect(wrongKey.stderr).toContain('refused the AWS credentials');
    expect(wrongKey.stderr).not.toContain('not-the-secret-key');
  });

  it('removes an unreferenced body from the bucket once older than the grace period, and only it', async () => {
    const env = { ...s3Env, WHARF_STORE: database.url, WHARF_BLOBS: blobsUrl };
    // A body an EMIT uploaded and died before committing: in this store's prefix, no row.
    const blobs = new S3BlobStore({
      bucket: BUCKET,
      prefix,
      endpoint: s3.endpoint,
      region: s3.region,
      forcePathStyle: true,
      credentials: s3,
    });
    const orphan = randomBytes(100_000);
    const sha256 = createHash('sha256').update(orphan).digest('hex');
    await writeFile(join(dir, 'orphan.part'), orphan);
    await blobs.putFile(sha256, join(dir, 'orphan.part'), orphan.length);
    try {
      // Fresh, it may be an EMIT on its way: the default grace (1h) keeps it.
      const kept = await wharf(['gc', '--older-than', '30d', '--max-bytes', '100GiB'], dir, env);
      expect(kept.code, kept.stderr).toBe(0);
      expect(kept.stdout).toContain('Removed 0 unreferenced bodies (no output, older than 1h), 0 B.');
      expect(await blobs.has(sha256)).toBe(true);
      // Once older than a grace of one second (the bucket keeps whole seconds), it goes.
      let modified = Date.now();
      for await (const blob of blobs.list()) if (blob.sha256 === sha256) modified = blob.modifiedMs;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, modified + 2_100 - Date.now())));
      const preview = await wharf(['gc', '--orphan-grace', '1s', '--dry-run'], dir, env);
      expect(preview.stdout).toContain(
        `Would remove 1 unreferenced body (no output, older than 1s), ${orphan.length} B.`,
      );
      expect(await blobs.has(sha256)).toBe(true);
      const removed = await wharf(['gc', '--orphan-grace', '1s', '--json'], dir, env);
      expect(removed.code, removed.stderr).toBe(0);
      expect(JSON.parse(removed.stdout)).toMatchObject({
        orphans: { removed: 1, freedBytes: orphan.length },
      });
      expect(await blobs.has(sha256)).toBe(false);
    } finally {
      await blobs.close();
    }
  });
});
