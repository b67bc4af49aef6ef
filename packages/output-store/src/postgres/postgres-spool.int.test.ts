import { randomBytes } from 'node:crypto';
import { chown, lstat, mkdir, mkdtemp, readdir, rm, stat, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { testS3Blobs } from '../s3/s3-test-blobs.test.data.js';
import {
  createPostgresDatabase,
  createS3Bucket,
  injectedS3Connection,
  type PostgresDatabase,
  type S3Connection,
} from '../testing/index.js';
import { PostgresOutputStore } from './postgres-output-store.js';

const bucket = 'postgres-spool-test';
let database: PostgresDatabase;
let connection: S3Connection;
let scratch: string;
let savedTmpdir: string | undefined;

beforeAll(async () => {
  database = await createPostgresDatabase(inject('postgresUrl'), 'spool');
  connection = injectedS3Connection();
  await createS3Bucket(connection, bucket);
  scratch = await mkdtemp(join(tmpdir(), 'wharf-pg-spool-'));
  // The store's temp folder lives under os.tmpdir(): point that at a folder of this test.
  savedTmpdir = process.env.TMPDIR;
  process.env.TMPDIR = join(scratch, 'tmp');
  await mkdir(process.env.TMPDIR);
});
afterAll(async () => {
  if (savedTmpdir === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmpdir;
  await database?.drop();
  await rm(scratch, { recursive: true, force: true });
});

function open(options: { spoolDir?: string } = {}): Promise<PostgresOutputStore> {
  return PostgresOutputStore.open({
    connectionString: database.url,
    schema: `spool_${randomBytes(4).toString('hex')}`,
    blobs: testS3Blobs(connection, bucket, `spool-${randomBytes(4).toString('hex')}`),
    inlineThresholdBytes: 1024,
    ...options,
  });
}

/** Every file below `root`, with its mode, found without following links. */
async function filesBelow(root: string): Promise<{ path: string; mode: number }[]> {
  const found: { path: string; mode: number }[] = [];
  for (const entry of await readdir(root, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    found.push({ path, mode: (await lstat(path)).mode & 0o777 });
  }
  return found;
}

describe('PostgresOutputStore spool folder', () => {
  it('spools in a private folder of its own, never through a link planted at the old fixed path', async () => {
    const temp = process.env.TMPDIR as string;
    const elsewhere = join(scratch, 'elsewhere');
    await mkdir(elsewhere, { mode: 0o777 });
    await symlink(elsewhere, join(temp, 'wharf-spool'));
    const store = await open();
    try {
      // A body over the inline threshold that stays half-written until released.
      let release!: () => void;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let halfway!: () => void;
      const reachedHalfway = new Promise<void>((resolve) => {
        halfway = resolve;
      });
      const body = randomBytes(200_000);
      async function* slow(): AsyncGenerator<Uint8Array> {
        yield body.subarray(0, 100_000);
        halfway();
        await held;
        yield body.subarray(100_000);
      }
      const emitted = store.emit({
        producer: { ownerId: 'o', runId: 'r', spawnId: 's' },
        content: { kind: 'stream', stream: slow() },
        idempotencyKey: 'big',
      });
      await reachedHalfway;
      // Give the store the turn in which it writes the first chunk to its temp file.
      await new Promise((resolve) => setImmediate(resolve));
      const folders = (await readdir(temp)).filter((name) => name.startsWith('wharf-spool-'));
      expect(folders).toHaveLength(1);
      const folder = join(temp, folders[0] as string);
      expect((await lstat(folder)).isDirectory()).toBe(true);
      expect((await stat(folder)).mode & 0o777).toBe(0o700);
      const spooled = await filesBelow(folder);
      expect(spooled.length).toBeGreaterThan(0);
      for (const file of spooled) expect(file.mode, file.path).toBe(0o600);
      release();
      const ref = await emitted;
      expect(Buffer.from((await store.get(ref)).body).equals(body)).toBe(true);
      expect(await readdir(elsewhere)).toEqual([]);
    } finally {
      await store.close();
    }
    // The folder goes with the store.
    expect((await readdir(temp)).filter((name) => name.startsWith('wharf-spool-'))).toEqual([]);
  });

  it('refuses a configured spool folder that is a link, another user’s or writable by others', async () => {
    const target = join(scratch, 'target');
    await mkdir(target, { mode: 0o700 });
    const link = join(scratch, 'link');
    await symlink(target, link);
    const shared = join(scratch, 'shared');
    await mkdir(shared);
    await import('node:fs/promises').then((fs) => fs.chmod(shared, 0o777));
    const cases: [string, RegExp][] = [
      [link, /symbolic link/],
      [shared, /writable by other users/],
    ];
    if (process.getuid?.() === 0) {
      const foreign = join(scratch, 'foreign');
      await mkdir(foreign, { mode: 0o700 });
      await chown(foreign, 65534, 65534);
      cases.push([foreign, /belongs to user 65534/]);
    }
    for (const [spoolDir, reason] of cases) {
      const error = await open({ spoolDir }).catch((caught: unknown) => caught);
      expect(error, spoolDir).toMatchObject({ code: 'INVALID_OPTION', option: 'spoolDir' });
      expect((error as Error).message).toMatch(reason);
    }
    // A missing folder is created private, and used.
    const fresh = join(scratch, 'fresh-spool');
    const store = await open({ spoolDir: fresh });
    await store.close();
    expect((await stat(fresh)).mode & 0o777).toBe(0o700);
  });
});
