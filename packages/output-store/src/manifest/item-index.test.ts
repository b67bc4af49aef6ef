import { describe, expect, it } from 'vitest';
import { ListItemTooLargeError } from '../errors.js';
import { InMemoryOutputStore } from '../in-memory-output-store.js';
import type { OutputStore } from '../types.js';
import { defaultMaxItemBytes, indexItems, readItem } from './item-index.js';
import { writeManifest, writeManifestChunk } from './write-manifest.js';

const producer = { ownerId: 'o', runId: 'r', spawnId: 'map' };

/** Counts the bytes read through `openBody`, to show an item read touches only its own range. */
function countingStore(): { store: OutputStore; read: () => number } {
  const store = new InMemoryOutputStore();
  let bytes = 0;
  const openBody = store.openBody.bind(store);
  store.openBody = async (ref, range) => {
    const body = await openBody(ref, range);
    bytes += body.end - body.start;
    return body;
  };
  return { store, read: () => bytes };
}

describe('indexItems and readItem', () => {
  it('indexes the lines of a body once; each item then costs two small range reads', async () => {
    const { store, read } = countingStore();
    const lines = Array.from({ length: 2_000 }, (_, index) => `  file-${index}.ts  `);
    const source = await store.emit({
      producer,
      content: { kind: 'text', text: `${lines.join('\n\n')}\n` },
      idempotencyKey: 'list',
    });
    const indexed = await indexItems(store, { source, producer, idempotencyKey: 'items', maxItems: 10_000 });
    expect(indexed).toMatchObject({ ok: true, count: 2_000, format: 'line', kind: 'lines' });
    if (!indexed.ok) return;
    const before = read();
    expect(await readItem(store, indexed.index, 1_234, indexed.format)).toBe('file-1234.ts');
    expect(read() - before).toBe(32 + '  file-1234.ts  '.length);
    await expect(readItem(store, indexed.index, 2_000, 'line')).rejects.toMatchObject({
      code: 'INVALID_RANGE',
    });
  });

  it('refuses an item over the size limit from its index record, before reading any of it', async () => {
    const { store, read } = countingStore();
    const huge = 'x'.repeat(defaultMaxItemBytes + 1);
    const source = await store.emit({
      producer,
      content: { kind: 'text', text: `small\n${huge}\n${'y'.repeat(300)}\n` },
      idempotencyKey: 'list',
    });
    const indexed = await indexItems(store, { source, producer, idempotencyKey: 'items', maxItems: 10 });
    if (!indexed.ok) throw new Error(indexed.reason);
    expect(await readItem(store, indexed.index, 0, indexed.format)).toBe('small');
    const before = read();
    const started = Date.now();
    const refused = await readItem(store, indexed.index, 1, indexed.format).catch(
      (caught: unknown) => caught,
    );
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(ListItemTooLargeError.isInstance(refused)).toBe(true);
    expect(refused).toMatchObject({
      code: 'TOO_LARGE',
      list: source.outId,
      position: 1,
      sizeBytes: defaultMaxItemBytes + 1,
      limitBytes: defaultMaxItemBytes,
    });
    expect((refused as Error).message).toContain(`item 1 of the list ${source.outId}`);
    // Only the item's 32-byte record in the index was read, none of its bytes.
    expect(read() - before).toBe(32);
    // A reader may set its own limit.
    await expect(
      readItem(store, indexed.index, 2, indexed.format, { maxItemBytes: 299 }),
    ).rejects.toMatchObject({
      name: 'ListItemTooLargeError',
      limitBytes: 299,
    });
    expect(await readItem(store, indexed.index, 2, indexed.format, { maxItemBytes: 300 })).toBe(
      'y'.repeat(300),
    );
  });

  it('returns the stored index for the same key without reading the source again', async () => {
    const { store, read } = countingStore();
    const source = await store.emit({
      producer,
      content: { kind: 'text', text: '[1, {"b": 2}]' },
      idempotencyKey: 'list',
    });
    const first = await indexItems(store, { source, producer, idempotencyKey: 'items', maxItems: 10 });
    const before = read();
    const again = await indexItems(store, { source, producer, idempotencyKey: 'items', maxItems: 10 });
    expect(again).toEqual(first);
    expect(again).toMatchObject({ count: 2, format: 'json', kind: 'json-array' });
    expect(read()).toBe(before);
    if (again.ok) expect(await readItem(store, again.index, 1, again.format)).toEqual({ b: 2 });
  });

  it('indexes the entries of a manifest, of one status when asked', async () => {
    const store = new InMemoryOutputStore();
    const record = (instance: number, status: string) => ({ instance, status, outIds: [`out_${instance}`] });
    const chunks = [
      await writeManifestChunk(store, {
        producer,
        idempotencyKey: 'c0',
        entries: [record(0, 'ok'), record(1, 'failed')],
      }),
      await writeManifestChunk(store, { producer, idempotencyKey: 'c1', entries: [record(2, 'ok')] }),
    ];
    const source = await writeManifest(store, { producer, idempotencyKey: 'm', chunks });
    const ok = await indexItems(store, {
      source,
      status: 'ok',
      producer,
      idempotencyKey: 'ok',
      maxItems: 10,
    });
    expect(ok).toMatchObject({ ok: true, count: 2, format: 'json', kind: 'manifest' });
    if (ok.ok) expect(await readItem(store, ok.index, 1, 'json')).toEqual(record(2, 'ok'));
    const all = await indexItems(store, { source, producer, idempotencyKey: 'all', maxItems: 2 });
    expect(all).toEqual({ ok: false, reason: expect.stringMatching(/more than 2 items \(max_items\)/) });
  });

  it('says why a body is no list, naming the output, and stores nothing', async () => {
    const store = new InMemoryOutputStore();
    const source = await store.emit({
      producer,
      content: { kind: 'text', text: '{"items": []}' },
      idempotencyKey: 'obj',
    });
    const result = await indexItems(store, { source, producer, idempotencyKey: 'items', maxItems: 10 });
    expect(result).toEqual({
      ok: false,
      reason: `the body of ${source.outId} is one JSON object, not a list (print one item per line, or a JSON array)`,
    });
    expect(await store.findByIdempotencyKey(producer, 'items')).toBeUndefined();
  });
});
