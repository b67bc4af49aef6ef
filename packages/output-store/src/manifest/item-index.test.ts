import { describe, expect, it } from 'vitest';
import { InMemoryOutputStore } from '../in-memory-output-store.js';
import type { OutputStore } from '../types.js';
import { indexItems, readItem } from './item-index.js';
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
