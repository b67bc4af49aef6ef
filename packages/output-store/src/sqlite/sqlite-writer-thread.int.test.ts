import { mkdir, rename, rmdir } from 'node:fs/promises';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { IdempotencyConflictError, OutputForbiddenError, StorageFailureError } from '../errors.js';
import { newOutId } from '../ids.js';
import { createIntakeServer } from '../intake/intake-server.js';
import { insertedColumns, insertParameters, rowValues } from '../output-row.js';
import { issueSpawnToken } from '../spawn-token.js';
import type { OutputEvent } from '../types.js';
import { RowWriter } from './row-writer.js';
import { scratchDatabase } from './scratch-database.test.data.js';
import { SqliteOutputStore } from './sqlite-output-store.js';
import { statementSql } from './statements.js';

const producer = { ownerId: 'owner', runId: 'run', spawnId: 'spawn' };
const secret = 'writer-thread-secret-with-enough-bytes!!';

function textEvent(key: string, text: string): OutputEvent {
  return { producer, idempotencyKey: key, content: { kind: 'text', text } };
}

/** A spawn token for {@link producer}: a minute, 8 outputs of up to 4 KiB. */
function tokenFor(): string {
  return issueSpawnToken(
    {
      v: 1,
      ...producer,
      readRefs: [],
      expiresAt: Date.now() + 60_000,
      maxOutputs: 8,
      maxOutputBytes: 4096,
    },
    secret,
  );
}

describe('SqliteOutputStore with its writer thread', () => {
  const scratch = scratchDatabase('wharf-output-writer-');

  function writerOf(): RowWriter {
    return new RowWriter({
      path: scratch.dbPath,
      busyTimeoutMs: 10_000,
      synchronous: 'NORMAL',
      sql: statementSql,
      insertedColumns,
    });
  }

  function item(key: string, text: string, maxOutputs?: number) {
    const bytes = Buffer.from(text);
    const values = rowValues(
      textEvent(key, text),
      {
        kind: 'inline',
        bytes,
        sha256: key
          .padEnd(64, '0')
          .slice(0, 64)
          .replace(/[^0-9a-f]/g, 'a'),
      },
      Date.now(),
      newOutId(),
    );
    return {
      parameters: insertParameters(values),
      labels: [],
      ...(maxOutputs === undefined ? {} : { maxOutputs }),
    };
  }

  it('answers an intake POST with 201 only once another connection can read its row', async () => {
    const store = new SqliteOutputStore({ path: scratch.dbPath, writerThread: true });
    const server = await createIntakeServer({ store, secret });
    const reader = new Database(scratch.dbPath, { readonly: true });
    try {
      const token = tokenFor();
      const responses = await Promise.all(
        ['k1', 'k2', 'k3'].map(async (key) => {
          const response = await fetch(`${server.url}/v1/outputs`, {
            method: 'POST',
            body: `body of ${key}`,
            headers: {
              authorization: `Bearer ${token}`,
              'idempotency-key': key,
              'content-type': 'text/plain',
            },
          });
          const { ref } = (await response.json()) as { ref: { outId: string } };
          // Read at once, on the 201, by a connection of its own.
          const row = reader
            .prepare('SELECT idempotency_key, body FROM outputs WHERE out_id = ?')
            .get(ref.outId) as { idempotency_key: string; body: Buffer } | undefined;
          return { status: response.status, row };
        }),
      );
      for (const [index, { status, row }] of responses.entries()) {
        expect(status).toBe(201);
        expect(row?.idempotency_key).toBe(`k${index + 1}`);
        expect(row?.body.toString()).toBe(`body of k${index + 1}`);
      }
    } finally {
      reader.close();
      await server.close();
      await store.close();
    }
  });

  it('stores each body of one batch byte for byte, empty ones and views into a shared buffer too', async () => {
    const store = new SqliteOutputStore({ path: scratch.dbPath, writerThread: true });
    const shared = Buffer.from('0123456789');
    const contents = [
      shared.subarray(2, 5),
      new Uint8Array(0),
      shared.subarray(7),
      Buffer.from('é'.repeat(300)),
    ];
    const refs = await Promise.all(
      contents.map((bytes, index) =>
        store.emit({ producer, idempotencyKey: `b${index}`, content: { kind: 'bytes', bytes } }),
      ),
    );
    for (const [index, ref] of refs.entries())
      expect(Buffer.from((await store.get(ref)).body)).toEqual(Buffer.from(contents[index] ?? []));
    await store.close();
  });

  it('keeps one row per key when a batch holds the same key twice: the same bytes replay, others conflict', async () => {
    const store = new SqliteOutputStore({ path: scratch.dbPath, writerThread: true });
    const settled = await Promise.allSettled([
      store.emitWithRecord(textEvent('twice', 'same'), { maxOutputs: 8 }),
      store.emitWithRecord(textEvent('twice', 'same'), { maxOutputs: 8 }),
      store.emitWithRecord(textEvent('twice', 'other'), { maxOutputs: 8 }),
    ]);
    const [first, replay, conflict] = settled;
    if (first?.status !== 'fulfilled' || replay?.status !== 'fulfilled') throw new Error('emits failed');
    expect(first.value.created).toBe(true);
    expect(replay.value).toMatchObject({ created: false, ref: first.value.ref });
    expect(conflict?.status === 'rejected' && IdempotencyConflictError.isInstance(conflict.reason)).toBe(
      true,
    );
    expect(await store.count({ spawnId: 'spawn' })).toBe(1);
    await store.close();
  });

  it('keeps one row per key across the batches of one turn (sent 8 at a time, 2 in flight)', async () => {
    const store = new SqliteOutputStore({ path: scratch.dbPath, writerThread: true });
    const keys = Array.from({ length: 30 }, (_, index) => `k${index % 10}`);
    const emitted = await Promise.all(
      keys.map((key) => store.emitWithRecord(textEvent(key, key), { maxOutputs: 10 })),
    );
    expect(emitted.filter((output) => output.created)).toHaveLength(10);
    for (const [index, output] of emitted.entries()) expect(output.ref).toEqual(emitted[index % 10]?.ref);
    expect(await store.count({ spawnId: 'spawn' })).toBe(10);
    await store.close();
  });

  it('refuses an emit beyond the quota with its typed error, counted in the batch', async () => {
    const store = new SqliteOutputStore({ path: scratch.dbPath, writerThread: true });
    const settled = await Promise.allSettled(
      ['a', 'b', 'c'].map((key) => store.emitWithRecord(textEvent(key, key), { maxOutputs: 2 })),
    );
    expect(settled.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
    const refused = settled[2];
    expect(refused?.status === 'rejected' && OutputForbiddenError.isInstance(refused.reason)).toBe(true);
    await store.close();
  });

  it('commits and answers the emits handed to its thread before close, then closes it', async () => {
    const store = new SqliteOutputStore({ path: scratch.dbPath, writerThread: true });
    const emitAll = (from: number) =>
      Array.from({ length: 10 }, (_, index) => store.emit(textEvent(`k${from + index}`, `v${from + index}`)));
    const first = emitAll(0);
    await Promise.race(first);
    const second = emitAll(10);
    // Two turns: the second emits are spooled and handed to the writer (in flight or queued).
    for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve));
    await store.close();
    const settled = await Promise.allSettled([...first, ...second]);
    expect(settled.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(20);
    const reopened = new SqliteOutputStore({ path: scratch.dbPath });
    expect(await reopened.count({ spawnId: 'spawn' })).toBe(20);
    await reopened.close();
  });

  it('fails the batches in flight with a typed error when its thread dies, and starts a new one for the next', async () => {
    new SqliteOutputStore({ path: scratch.dbPath }).close();
    const writer = writerOf();
    try {
      await writer.write(Date.now(), [item('a', 'alpha')], new ArrayBuffer(0));
      const first = writer.threadId;
      expect(first).toBeDefined();
      const inFlight = writer.write(Date.now(), [item('b', 'beta')], new ArrayBuffer(0));
      await writer.terminate();
      await expect(inFlight).rejects.toSatisfy((error) => StorageFailureError.isInstance(error));
      const { outcomes } = await writer.write(Date.now(), [item('c', 'gamma')], new ArrayBuffer(0));
      expect(outcomes).toEqual([{ created: true }]);
      expect(writer.threadId).not.toBe(first);
    } finally {
      await writer.close();
    }
    expect(writer.threadId).toBeUndefined();
    await expect(writer.write(Date.now(), [item('d', 'delta')], new ArrayBuffer(0))).rejects.toSatisfy(
      (error) => StorageFailureError.isInstance(error),
    );
  });

  it('answers 500 STORAGE_FAILURE, not a hang, while its thread cannot start, and recovers after', async () => {
    const store = new SqliteOutputStore({ path: scratch.dbPath, writerThread: true });
    const server = await createIntakeServer({ store, secret });
    const token = tokenFor();
    const post = async (key: string) => {
      const response = await fetch(`${server.url}/v1/outputs`, {
        method: 'POST',
        body: key,
        headers: { authorization: `Bearer ${token}`, 'idempotency-key': key, 'content-type': 'text/plain' },
      });
      return { status: response.status, body: (await response.json()) as { error?: { code: string } } };
    };
    try {
      // The thread opens the database on its first batch: a folder in its place stops it.
      await rename(scratch.dbPath, `${scratch.dbPath}.away`);
      await mkdir(scratch.dbPath);
      const failed = await post('k1');
      expect(failed.status).toBe(500);
      expect(failed.body.error?.code).toBe('STORAGE_FAILURE');
      await rmdir(scratch.dbPath);
      await rename(`${scratch.dbPath}.away`, scratch.dbPath);
      expect((await post('k1')).status).toBe(201);
      expect((await post('k1')).status).toBe(200);
    } finally {
      await server.close();
      await store.close();
    }
  });
});
