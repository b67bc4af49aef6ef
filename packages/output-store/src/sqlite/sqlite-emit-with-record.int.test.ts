import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IdempotencyConflictError, OutputForbiddenError } from '../errors.js';
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

describe('SqliteOutputStore.emitWithRecord with maxOutputs', () => {
  let directory: string;
  let now: number;
  const stores: SqliteOutputStore[] = [];
  const open = () => {
    const store = new SqliteOutputStore({ path: join(directory, 'outputs.db'), now: () => now });
    stores.push(store);
    return store;
  };
  const text = (idempotencyKey: string, body: string, extra: Partial<OutputEvent> = {}): OutputEvent => ({
    producer,
    idempotencyKey,
    content: { kind: 'text', text: body },
    ...extra,
  });
  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'wharf-emit-quota-'));
    now = Date.now();
  });
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    await rm(directory, { recursive: true, force: true });
  });

  it('stores exactly maxOutputs of concurrent emits through two connections and refuses the rest', async () => {
    const [first, second] = [open(), open()];
    const settled = await Promise.allSettled(
      Array.from({ length: 30 }, (_, index) =>
        (index % 2 === 0 ? first : second).emitWithRecord(text(`k${index}`, `body ${index}`), {
          maxOutputs: 7,
        }),
      ),
    );
    const refused = settled.filter((outcome) => outcome.status === 'rejected');
    expect(settled.length - refused.length).toBe(7);
    for (const outcome of refused) {
      expect(outcome.reason).toSatisfy(OutputForbiddenError.isInstance);
      expect((outcome.reason as Error).message).toBe('this spawn may store at most 7 outputs');
    }
    expect(await first.count(producer)).toBe(7);
  });

  it('still answers a replay, and a conflict for other bytes, once the spawn is full', async () => {
    const store = open();
    const stored = await store.emitWithRecord(text('a', 'A'), { maxOutputs: 2 });
    await store.emitWithRecord(text('b', 'B'), { maxOutputs: 2 });
    await expect(store.emitWithRecord(text('c', 'C'), { maxOutputs: 2 })).rejects.toSatisfy(
      OutputForbiddenError.isInstance,
    );
    expect(await store.emitWithRecord(text('a', 'A'), { maxOutputs: 2 })).toEqual({
      ...stored,
      created: false,
    });
    await expect(store.emitWithRecord(text('a', 'other'), { maxOutputs: 2 })).rejects.toSatisfy(
      IdempotencyConflictError.isInstance,
    );
    // Another spawn has room of its own.
    const elsewhere = { ...text('c', 'C'), producer: { ...producer, spawnId: 'other' } };
    expect((await store.emitWithRecord(elsewhere, { maxOutputs: 2 })).created).toBe(true);
  });

  it('counts live outputs only: an expired or deleted one frees its slot, and its key is not a replay', async () => {
    const store = open();
    await store.emitWithRecord(text('brief', 'x', { ttlMs: 1000 }), { maxOutputs: 2 });
    const kept = await store.emitWithRecord(text('kept', 'y'), { maxOutputs: 2 });
    await expect(store.emitWithRecord(text('brief', 'x'), { maxOutputs: 1 })).resolves.toMatchObject({
      created: false,
    });
    now += 1001;
    // The expired holder of 'brief' is gone: its key makes a new output, which needs room.
    await expect(store.emitWithRecord(text('brief', 'x'), { maxOutputs: 1 })).rejects.toSatisfy(
      OutputForbiddenError.isInstance,
    );
    expect((await store.emitWithRecord(text('brief', 'x'), { maxOutputs: 2 })).created).toBe(true);
    await store.delete(kept.ref);
    expect((await store.emitWithRecord(text('third', 'z'), { maxOutputs: 2 })).created).toBe(true);
  });
});
