import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { latestSchemaVersion, migrate } from './migrations.js';
import { scratchDatabase } from './scratch-database.test.data.js';
import { SqliteOutputStore } from './sqlite-output-store.js';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('SqliteOutputStore schema upgrades', () => {
  const scratch = scratchDatabase('wharf-output-migrations-');

  it('opens a database of schema 1 (keys unique per owner), keeps every output and scopes keys per spawn', async () => {
    const inlineBody = Buffer.from('inline body of version one');
    const fileBody = Buffer.alloc(100 * 1024, 9);
    const old = new Database(scratch.dbPath);
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
    const blobDir = join(`${scratch.dbPath}.blobs`, sha256(fileBody).slice(0, 2));
    await mkdir(blobDir, { recursive: true });
    await writeFile(join(blobDir, sha256(fileBody)), fileBody);

    const store = new SqliteOutputStore({ path: scratch.dbPath });
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
    const reopened = new SqliteOutputStore({ path: scratch.dbPath });
    expect(reopened.schemaVersion).toBe(latestSchemaVersion);
    expect(await reopened.count({})).toBe(3);
    await reopened.close();
  });

  it('opens a database of schema 2, keeps every row and its seq, and finds by run through the key index', async () => {
    const old = new Database(scratch.dbPath);
    old.pragma('journal_mode = WAL');
    expect(migrate(old, 2)).toBe(2);
    const insert = old.prepare(
      `INSERT INTO outputs (seq, out_id, owner_id, run_id, spawn_id, agent, idempotency_key, name, content_type,
         size_bytes, sha256, created_at, expires_at, storage, body, labels)
       VALUES (?, ?, 'owner', ?, ?, NULL, ?, NULL, 'text/plain', ?, ?, ?, NULL, 'inline', ?, '{}')`,
    );
    const now = Date.now();
    const rows = [
      [4, 'out_AAAAAAAAAAAAAAB1', 'run-1', 'spawn-a', 'k/0'],
      [9, 'out_AAAAAAAAAAAAAAB2', 'run-1', 'spawn-b', 'k/0'],
      [12, 'out_AAAAAAAAAAAAAAB3', 'run-2', 'spawn-a', 'k/0'],
    ] as const;
    for (const [seq, outId, runId, spawnId, key] of rows) {
      const body = Buffer.from(`body of ${outId}`);
      insert.run(seq, outId, runId, spawnId, key, body.length, sha256(body), now, body);
    }
    old.close();

    const store = new SqliteOutputStore({ path: scratch.dbPath });
    try {
      expect(store.schemaVersion).toBe(latestSchemaVersion);
      expect((await store.list({ runId: 'run-1' })).records.map((record) => record.outId)).toEqual([
        'out_AAAAAAAAAAAAAAB1',
        'out_AAAAAAAAAAAAAAB2',
      ]);
      expect(
        (await store.list({ runId: 'run-2', spawnId: 'spawn-a' })).records.map((record) => record.outId),
      ).toEqual(['out_AAAAAAAAAAAAAAB3']);
      for (const [, outId] of rows) {
        expect(Buffer.from((await store.get({ outId })).body).toString()).toBe(`body of ${outId}`);
      }
      // Keys stay unique per (owner, run, spawn): a retry answers the stored ref.
      const producer = { ownerId: 'owner', runId: 'run-1', spawnId: 'spawn-b' };
      const retried = await store.emit({
        producer,
        content: { kind: 'text', text: 'body of out_AAAAAAAAAAAAAAB2' },
        idempotencyKey: 'k/0',
      });
      expect(retried).toEqual({ outId: 'out_AAAAAAAAAAAAAAB2' });
      // New rows continue after the old seq, so list cursors keep their order.
      const fresh = await store.emit({
        producer,
        content: { kind: 'text', text: 'new' },
        idempotencyKey: 'k/1',
      });
      expect((await store.list({ runId: 'run-1' })).records.map((record) => record.outId)).toEqual([
        'out_AAAAAAAAAAAAAAB1',
        'out_AAAAAAAAAAAAAAB2',
        fresh.outId,
      ]);
    } finally {
      await store.close();
    }
    const db = new Database(scratch.dbPath, { readonly: true });
    try {
      const indexes = (db.prepare('PRAGMA index_list(outputs)').all() as { name: string }[]).map(
        (index) => index.name,
      );
      expect(indexes).not.toContain('outputs_by_run');
      const plan = (
        db
          .prepare('EXPLAIN QUERY PLAN SELECT out_id FROM outputs WHERE run_id = ? AND spawn_id = ?')
          .all('r', 's') as {
          detail: string;
        }[]
      )
        .map((step) => step.detail)
        .join('\n');
      expect(plan).toMatch(
        /SEARCH outputs USING (COVERING )?INDEX sqlite_autoindex_outputs_\d \(run_id=\? AND spawn_id=\?\)/,
      );
    } finally {
      db.close();
    }
  });
});
