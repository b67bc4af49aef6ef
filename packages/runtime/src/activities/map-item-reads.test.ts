import {
  InMemoryOutputStore,
  indexItems,
  type OutputStore,
  readBody,
  readItem,
  StorageFailureError,
} from '@wharf/output-store';
import { describe, expect, it } from 'vitest';
import { MapItemReads } from './map-item-reads.js';

/** A store that counts what is read from it, and can fail its next size lookup. */
class CountingStore extends InMemoryOutputStore {
  stats = 0;
  wholeReads = 0;
  rangeReads = 0;
  failNext = false;
  override async stat(...args: Parameters<OutputStore['stat']>) {
    this.stats += 1;
    if (this.failNext) {
      this.failNext = false;
      throw new StorageFailureError('disk gone');
    }
    return super.stat(...args);
  }
  override async openBody(...args: Parameters<OutputStore['openBody']>) {
    if (args[1] === undefined) this.wholeReads += 1;
    else this.rangeReads += 1;
    return super.openBody(...args);
  }
}

const producer = { ownerId: 'o', runId: 'r', spawnId: 'list' };

/** A stored list of `count` lines and its item index, as a map over a script's stdout has them. */
async function storedList(store: OutputStore, count: number) {
  const source = await store.emit({
    producer,
    content: { kind: 'text', text: Array.from({ length: count }, (_, n) => `item-${n}\n`).join('') },
    idempotencyKey: 'stdout',
  });
  const indexed = await indexItems(store, { source, producer, idempotencyKey: 'index', maxItems: 100_000 });
  if (!indexed.ok) throw new Error(indexed.reason);
  return indexed;
}

describe('MapItemReads', () => {
  it('reads each body once for all the instances of a map, the same items as the store gives', async () => {
    const store = new CountingStore();
    const list = await storedList(store, 500);
    const reads = new MapItemReads(store);
    store.stats = 0;
    store.wholeReads = 0;
    store.rangeReads = 0;
    const items = await Promise.all(
      Array.from({ length: 500 }, (_, n) => readItem(reads, list.index, n, list.format)),
    );
    expect(items).toEqual(Array.from({ length: 500 }, (_, n) => `item-${n}`));
    // The index and the source: asked their size once each, read whole once each, never by range.
    expect({ stats: store.stats, whole: store.wholeReads, ranges: store.rangeReads }).toEqual({
      stats: 2,
      whole: 2,
      ranges: 0,
    });
    expect(await readItem(store, list.index, 321, list.format)).toBe(
      await readItem(reads, list.index, 321, list.format),
    );
  });

  it('serves every range as the store does and refuses the same ones', async () => {
    const store = new CountingStore();
    const ref = await store.emit({
      producer,
      content: { kind: 'text', text: '0123456789' },
      idempotencyKey: 'k',
    });
    const reads = new MapItemReads(store);
    const text = async (source: Pick<OutputStore, 'openBody'>, range?: { start?: number; end?: number }) => {
      const { start, end, bytes } = await readBody(source, ref, range);
      return { start, end, text: bytes.toString() };
    };
    for (const range of [
      undefined,
      { start: 2, end: 5 },
      { start: 7 },
      { end: 3 },
      { start: 10 },
      { start: 0, end: 0 },
    ])
      expect(await text(reads, range)).toEqual(await text(store, range));
    for (const range of [{ start: 4, end: 11 }, { start: 6, end: 5 }, { start: -1 }]) {
      await expect(reads.openBody(ref, range)).rejects.toMatchObject({
        code: 'INVALID_RANGE',
        sizeBytes: 10,
      });
    }
  });

  it('reads a body over its bound by range from the store, every time', async () => {
    const store = new CountingStore();
    const list = await storedList(store, 100);
    const reads = new MapItemReads(store, { maxBodyBytes: 1000 });
    store.rangeReads = 0;
    store.wholeReads = 0;
    for (let n = 0; n < 10; n++) expect(await readItem(reads, list.index, n, list.format)).toBe(`item-${n}`);
    // The index (3,200 bytes) by range each time; the source (990 bytes) whole once.
    expect(store.rangeReads).toBe(10);
    expect(store.wholeReads).toBe(1);
  });

  it('reads again after its time, so an output deleted meanwhile is gone at the latest then', async () => {
    const store = new CountingStore();
    let now = 0;
    const ref = await store.emit({ producer, content: { kind: 'text', text: 'body' }, idempotencyKey: 'k' });
    const reads = new MapItemReads(store, { ttlMs: 1000, now: () => now });
    await reads.openBody(ref, { start: 0, end: 2 });
    await store.delete(ref);
    now = 999;
    await expect(reads.openBody(ref, { start: 0, end: 2 })).resolves.toMatchObject({ end: 2 });
    now = 1000;
    await expect(reads.openBody(ref, { start: 0, end: 2 })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('keeps no failed read, and drops the least recently used body past its bytes', async () => {
    const store = new CountingStore();
    const refs = [];
    for (const key of ['a', 'b', 'c'])
      refs.push(
        await store.emit({ producer, content: { kind: 'text', text: key.repeat(100) }, idempotencyKey: key }),
      );
    const [a, b, c] = refs as [(typeof refs)[0], (typeof refs)[0], (typeof refs)[0]];
    const reads = new MapItemReads(store, { maxBytes: 250 });
    store.failNext = true;
    await expect(reads.openBody(a, { start: 0, end: 1 })).rejects.toMatchObject({ code: 'STORAGE_FAILURE' });
    await reads.openBody(a, { start: 0, end: 1 });
    await reads.openBody(b, { start: 0, end: 1 });
    store.wholeReads = 0;
    await reads.openBody(a, { start: 0, end: 1 }); // kept: a is now the most recent
    expect(store.wholeReads).toBe(0);
    await reads.openBody(c, { start: 0, end: 1 }); // 300 bytes: b, the least recently used, goes
    await reads.openBody(a, { start: 0, end: 1 });
    expect(store.wholeReads).toBe(1);
    await reads.openBody(b, { start: 0, end: 1 });
    expect(store.wholeReads).toBe(2);
  });
});
