import { describe, expect, it } from 'vitest';
import { InMemoryOutputStore } from '../in-memory-output-store.js';
import { asWharfWrite } from '../wharf-writes.js';
import { isManifestRecord, manifestEntries, manifestRefs, readManifest } from './read-manifest.js';
import { writeManifest, writeManifestChunk } from './write-manifest.js';

const producer = { ownerId: 'o', runId: 'r', spawnId: 'fan.manifest' };
const read = { scope: { ownerId: 'o', runIds: ['r'] } };

describe('stored lists (manifests)', () => {
  it('stores chunks and a manifest; readers get every entry and every out id, in order', async () => {
    const store = new InMemoryOutputStore();
    const first = await writeManifestChunk(store, {
      producer,
      idempotencyKey: 'fan/0',
      entries: ['out_a', { outIds: ['out_b', 'out_c'] }],
    });
    const second = await writeManifestChunk(store, {
      producer,
      idempotencyKey: 'fan/1',
      entries: [{ status: 'failed', outIds: [] }],
    });
    const ref = await writeManifest(store, { producer, idempotencyKey: 'fan', chunks: [first, second] });
    expect(isManifestRecord(await store.stat(ref))).toBe(true);
    expect(await readManifest(store, ref, read)).toEqual({
      format: 'wharf-manifest/1',
      count: 3,
      chunks: [first, second],
    });
    expect(await manifestRefs(store, ref, read)).toEqual(['out_a', 'out_b', 'out_c']);
    const entries: unknown[] = [];
    for await (const entry of manifestEntries(store, ref, read)) entries.push(entry);
    expect(entries).toHaveLength(3);
    // A retried write with the same key and entries stores nothing new.
    expect(
      await writeManifestChunk(store, {
        producer,
        idempotencyKey: 'fan/0',
        entries: ['out_a', { outIds: ['out_b', 'out_c'] }],
      }),
    ).toEqual(first);
  });

  it('reads a chunk that is a manifest itself in its place', async () => {
    const store = new InMemoryOutputStore();
    const chunk = (key: string, entries: string[]) =>
      writeManifestChunk(store, { producer, idempotencyKey: key, entries });
    const inner = await writeManifest(store, {
      producer,
      idempotencyKey: 'inner',
      chunks: [await chunk('a', ['out_1', 'out_2']), await chunk('b', ['out_3'])],
    });
    const outer = await writeManifest(store, {
      producer,
      idempotencyKey: 'outer',
      chunks: [{ outId: inner.outId, count: 3, manifest: true }, await chunk('c', ['out_4'])],
    });
    expect(await manifestRefs(store, outer, read)).toEqual(['out_1', 'out_2', 'out_3', 'out_4']);
    expect((await readManifest(store, outer, read)).count).toBe(4);
  });

  it('refuses a manifest whose body is no manifest, naming the output and the field', async () => {
    const store = new InMemoryOutputStore();
    const manifestPart = (text: string, key: string) =>
      store.emit(
        asWharfWrite({
          producer,
          content: { kind: 'text', text },
          idempotencyKey: key,
          contentType: 'application/vnd.wharf.manifest+json',
          labels: { 'wharf.part': 'manifest' },
        }),
      );
    const bad = await manifestPart('{"format":"wharf-manifest/1","count":2,"chunks":[]}', 'bad');
    await expect(readManifest(store, bad, read)).rejects.toMatchObject({
      code: 'STORAGE_FAILURE',
      message: `output ${bad.outId} is not a manifest: count count is not the sum of the chunks’ counts`,
    });
    const text = await manifestPart('hello', 'text');
    await expect(readManifest(store, text, read)).rejects.toThrow(/its body is not JSON/);
  });

  it('refuses a body Wharf did not write as a manifest, whatever it holds', async () => {
    const store = new InMemoryOutputStore();
    const lookalike = await store.emit({
      producer,
      content: { kind: 'text', text: '{"format":"wharf-manifest/1","count":0,"chunks":[]}' },
      idempotencyKey: 'lookalike',
      contentType: 'application/json',
    });
    expect(isManifestRecord(await store.stat(lookalike))).toBe(false);
    await expect(readManifest(store, lookalike, read)).rejects.toMatchObject({
      code: 'UNTRUSTED_LIST',
      message: expect.stringMatching(/is not a manifest written by Wharf/),
    });
  });
});
