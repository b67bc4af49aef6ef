import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { latestSchemaVersion, migrate } from './migrations.js';
import { SqliteOutputStore } from './sqlite-output-store.js';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('SqliteOutputStore schema upgrades', () => {
  let directory: string;
  let dbPath: string;

  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'wharf-output-migrations-'));
    dbPath = join(directory, 'outputs.db');
  });
  afterEach(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('opens a database of schema 1 (keys unique per owner), keeps every output and scopes keys per spawn', async () => {
    const inlineBody = Buffer.from('inline body of version one');
    const fileBody = Buffer.alloc(100 * 1024, 9);
    const old = new Database(dbPath);
    old.pragma('journal_mode = WAL');
    expect(migrate(old, 1)).toBe(1);
    const insert = old.prepare(
      `INSERT INTO outputs (seq, out_id, owner_id, run_id, spawn_id, agent, idempotency_key, name, content_type,
         size_bytes, sha256, created_at, expires_at, storage, body, labels)
       VALUES (?, ?, 'owner', 'run', ?, NULL, ?, NULL, 'text/plain', ?, ?, ?, NULL, ?, ?, ?)`,
    );
    const now = Date.now();
    insert.run(
      3,
      'out_AAAAAAAAAAAAAAA1',
      'spawn-a',
      'k/0',
      inlineBody.length,
      sha256(inlineBody),
      now,
      'inline',
      inlineBody,
      '{"step":"a"}',
    );
    insert.run(
      7,
      'out_AAAAAAAAAAAAAAA2',
      'spawn-a',
      'k/1',
      fileBody.length,
      sha256(fileBody),
      now,
      'file',
      null,
      '{}',
    );
    old
      .prepare("INSERT INTO output_labels (key, value, out_id) VALUES ('step', 'a', 'out_AAAAAAAAAAAAAAA1')")
      .run();
    old.close();
    const blobDir = join(`${dbPath}.blobs`, sha256(fileBody).slice(0, 2));
    await mkdir(blobDir, { recursive: true });
    await writeFile(join(blobDir, sha256(fileBody)), fileBody);

    const store = new SqliteOutputStore({ path: dbPath });
    try {
      expect(store.schemaVersion).toBe(latestSchemaVersion);
      const first = await store.list({ limit: 1 });
      expect(first.records.map((record) => record.outId)).toEqual(['out_AAAAAAAAAAAAAAA1']);
      const rest = await store.list({ limit: 1, ...(first.nextCursor ? { cursor: first.nextCursor } : {}) });
      expect(rest.records.map((record) => record.outId)).toEqual(['out_AAAAAAAAAAAAAAA2']);
      expect((await store.list({ labels: { step: 'a' } })).records).toHaveLength(1);
      expect(Buffer.from((await store.get({ outId: 'out_AAAAAAAAAAAAAAA1' })).body).equals(inlineBody)).toBe(
        true,
      );
      expect(Buffer.from((await store.get({ outId: 'out_AAAAAAAAAAAAAAA2' })).body).equals(fileBody)).toBe(
        true,
      );

      const spawnA = { ownerId: 'owner', runId: 'run', spawnId: 'spawn-a' };
      const spawnB = { ...spawnA, spawnId: 'spawn-b' };
      expect(await store.findByIdempotencyKey(spawnA, 'k/0')).toEqual({ outId: 'out_AAAAAAAAAAAAAAA1' });
      expect(await store.findByIdempotencyKey(spawnB, 'k/0')).toBeUndefined();
      const retried = await store.emit({
        producer: spawnA,
        content: { kind: 'bytes', bytes: inlineBody },
        idempotencyKey: 'k/0',
      });
      expect(retried).toEqual({ outId: 'out_AAAAAAAAAAAAAAA1' });
      const theirs = await store.emit({
        producer: spawnB,
        content: { kind: 'text', text: 'spawn b' },
        idempotencyKey: 'k/0',
      });
      expect(theirs.outId).not.toBe('out_AAAAAAAAAAAAAAA1');
      expect(await store.count({})).toBe(3);
    } finally {
      await store.close();
    }
    const reopened = new SqliteOutputStore({ path: dbPath });
    expect(reopened.schemaVersion).toBe(latestSchemaVersion);
    expect(await reopened.count({})).toBe(3);
    await reopened.close();
  });
});
