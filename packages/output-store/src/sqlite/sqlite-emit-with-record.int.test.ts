import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IdempotencyConflictError } from '../errors.js';
import type { OutputEvent } from '../types.js';
import { SqliteOutputStore } from './sqlite-output-store.js';

const producer = { ownerId: 'o', runId: 'r', spawnId: 's', agent: 'writer' };

describe('SqliteOutputStore.emitWithRecord', () => {
  let directory: string;
  let store: SqliteOutputStore;
  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'wharf-emit-record-'));
    store = new SqliteOutputStore({ path: join(directory, 'outputs.db'), inlineThresholdBytes: 1024 });
  });
  afterEach(async () => {
    await store.close();
    await rm(directory, { recursive: true, force: true });
  });

  const events: [string, OutputEvent][] = [
    ['an inline body', { producer, idempotencyKey: 'inline', content: { kind: 'text', text: 'hello' } }],
    [
      'labels, a name and a ttl',
      {
        producer,
        idempotencyKey: 'labelled',
        name: 'summary.json',
        labels: { kind: 'summary', lang: 'en' },
        ttlMs: 60_000,
        content: { kind: 'json', value: { ok: true } },
      },
    ],
    [
      'a body file',
      { producer, idempotencyKey: 'file', content: { kind: 'bytes', bytes: new Uint8Array(4096).fill(7) } },
    ],
  ];

  it.each(events)('answers for %s the record stat reads back, created once', async (_name, event) => {
    const first = await store.emitWithRecord(event);
    expect(first.created).toBe(true);
    expect(first.record).toEqual(await store.stat(first.ref));
    const replay = await store.emitWithRecord(event);
    expect(replay).toEqual({ ref: first.ref, record: first.record, created: false });
  });

  it('answers the record of each output committed in one batch', async () => {
    const batch = Array.from({ length: 6 }, (_, index) =>
      store.emitWithRecord({
        producer,
        idempotencyKey: `k${index}`,
        ...(index % 2 === 0 ? { labels: { index: String(index) } } : {}),
        content: { kind: 'text', text: `body ${index}` },
      }),
    );
    for (const emitted of await Promise.all(batch)) {
      expect(emitted.created).toBe(true);
      expect(emitted.record).toEqual(await store.stat(emitted.ref));
    }
  });

  it('refuses other bytes under a used key', async () => {
    await store.emitWithRecord({ producer, idempotencyKey: 'k', content: { kind: 'text', text: 'a' } });
    await expect(
      store.emitWithRecord({ producer, idempotencyKey: 'k', content: { kind: 'text', text: 'b' } }),
    ).rejects.toSatisfy(IdempotencyConflictError.isInstance);
  });
});
