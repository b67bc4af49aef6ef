import { describe, expect, it } from 'vitest';
import { InMemoryOutputStore } from '../in-memory-output-store.js';
import type { Producer } from '../types.js';
import { indexItems } from './item-index.js';
import { manifestChunks, manifestRefs } from './read-manifest.js';
import { writeManifest, writeManifestChunk } from './write-manifest.js';

const owner: Producer = { ownerId: 'default', runId: 'run-1', spawnId: 'fan.results' };
const victim: Producer = { ownerId: 'victim-team', runId: 'run-9', spawnId: 'secret' };
const read = { scope: { ownerId: 'default', runIds: ['run-1'] } };

describe('stored lists that cannot be forged', () => {
  it('refuses, at every entry point, a content type or part label only Wharf writes', async () => {
    const store = new InMemoryOutputStore();
    const base = { producer: owner, content: { kind: 'text', text: '{}' } as const };
    for (const contentType of [
      'application/vnd.wharf.manifest+json',
      'Application/VND.Wharf.Manifest+JSON; charset=utf-8',
      'application/vnd.wharf.item-index',
      'application/x-temporal-payload',
    ])
      await expect(store.emit({ ...base, idempotencyKey: contentType, contentType })).rejects.toMatchObject({
        code: 'INVALID_EVENT',
        field: 'contentType',
      });
    await expect(
      store.emit({ ...base, idempotencyKey: 'label', labels: { 'wharf.part': 'manifest' } }),
    ).rejects.toMatchObject({ code: 'INVALID_EVENT', field: 'labels.wharf.part' });
    // A mark set through JSON (what HTTP and a model's tool call deliver) is only a string key.
    const viaJson = JSON.parse(
      JSON.stringify({ ...base, idempotencyKey: 'json', contentType: 'application/vnd.wharf.manifest+json' }),
    );
    await expect(store.emit(viaJson)).rejects.toMatchObject({ code: 'INVALID_EVENT' });
    expect((await store.list({ ownerId: 'default' })).records).toHaveLength(0);
  });

  it('does not follow a chunk of another owner, even from a list Wharf wrote', async () => {
    const store = new InMemoryOutputStore();
    const secret = await store.emit({
      producer: victim,
      content: { kind: 'text', text: 'the victim’s secret' },
      idempotencyKey: 'secret',
    });
    const foreign = await writeManifestChunk(store, {
      producer: victim,
      idempotencyKey: 'c',
      entries: [secret.outId],
    });
    const list = await writeManifest(store, { producer: owner, idempotencyKey: 'm', chunks: [foreign] });
    await expect(manifestRefs(store, list, read)).rejects.toMatchObject({
      code: 'UNTRUSTED_LIST',
      outId: foreign.outId,
      reason: 'it belongs to another owner',
    });
    const victimsList = await writeManifest(store, {
      producer: victim,
      idempotencyKey: 'v',
      chunks: [foreign],
    });
    await expect(manifestRefs(store, victimsList, read)).rejects.toMatchObject({ code: 'UNTRUSTED_LIST' });
    // An over: loop indexing another owner's output is refused the same way.
    await expect(
      indexItems(store, { source: secret, producer: owner, idempotencyKey: 'items', maxItems: 10 }),
    ).rejects.toMatchObject({ code: 'UNTRUSTED_LIST', reason: 'it belongs to another owner' });
  });

  it('follows the runs of the reader’s lineage and no other', async () => {
    const store = new InMemoryOutputStore();
    const earlier: Producer = { ...owner, runId: 'run-0' };
    const chunk = await writeManifestChunk(store, {
      producer: earlier,
      idempotencyKey: 'c',
      entries: ['out_a'],
    });
    const list = await writeManifest(store, { producer: earlier, idempotencyKey: 'm', chunks: [chunk] });
    await expect(manifestRefs(store, list, read)).rejects.toMatchObject({
      code: 'UNTRUSTED_LIST',
      reason: expect.stringMatching(/run run-0, outside the reading run's lineage/),
    });
    expect(
      await manifestRefs(store, list, { scope: { ownerId: 'default', runIds: ['run-1', 'run-0'] } }),
    ).toEqual(['out_a']);
  });

  it('reads an exponential graph of manifests in a few reads and refuses it', async () => {
    const store = new InMemoryOutputStore();
    // Each level names the one below twice: 41 writes, 2^40 chunk reads for a naive reader.
    let below = await writeManifestChunk(store, {
      producer: owner,
      idempotencyKey: 'leaf',
      entries: ['out_a'],
    });
    let count = 1;
    let manifest = false;
    for (let level = 0; level < 40; level++) {
      const ref = { outId: below.outId, count, ...(manifest ? { manifest: true as const } : {}) };
      const next = await writeManifest(store, {
        producer: owner,
        idempotencyKey: `level-${level}`,
        chunks: [ref, ref],
      });
      below = { outId: next.outId, count: count * 2 };
      count *= 2;
      manifest = true;
    }
    const started = performance.now();
    await expect(manifestRefs(store, { outId: below.outId }, read)).rejects.toMatchObject({
      code: 'UNTRUSTED_LIST',
      reason: 'it is named twice in the list',
    });
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('keeps the depth, part and byte bounds, and checks nested counts', async () => {
    const store = new InMemoryOutputStore();
    const leaf = await writeManifestChunk(store, {
      producer: owner,
      idempotencyKey: 'leaf',
      entries: ['out_a', 'out_b'],
    });
    let top = await writeManifest(store, { producer: owner, idempotencyKey: 'd0', chunks: [leaf] });
    for (let depth = 1; depth <= 5; depth++)
      top = await writeManifest(store, {
        producer: owner,
        idempotencyKey: `d${depth}`,
        chunks: [{ outId: top.outId, count: 2, manifest: true }],
      });
    expect(await manifestRefs(store, top, read)).toEqual(['out_a', 'out_b']);
    await expect(manifestRefs(store, top, { ...read, limits: { maxDepth: 3 } })).rejects.toMatchObject({
      code: 'LIST_LIMIT',
      limit: 'depth',
    });
    await expect(manifestRefs(store, top, { ...read, limits: { maxParts: 4 } })).rejects.toMatchObject({
      code: 'LIST_LIMIT',
      limit: 'parts',
    });
    await expect(manifestRefs(store, top, { ...read, limits: { maxBytes: 200 } })).rejects.toMatchObject({
      code: 'LIST_LIMIT',
      limit: 'bytes',
    });
    await expect(manifestRefs(store, top, { ...read, limits: { maxPartBytes: 8 } })).rejects.toMatchObject({
      code: 'LIST_LIMIT',
      limit: 'partBytes',
    });
    const lying = await writeManifest(store, {
      producer: owner,
      idempotencyKey: 'lying',
      chunks: [{ outId: top.outId, count: 7, manifest: true }],
    });
    await expect(manifestRefs(store, lying, read)).rejects.toMatchObject({
      code: 'UNTRUSTED_LIST',
      reason: 'it holds 2 entries, its parent recorded 7',
    });
  });

  it('stops when its signal aborts, and lets timers fire while it reads', async () => {
    const store = new InMemoryOutputStore();
    const chunks = [];
    for (let index = 0; index < 200; index++)
      chunks.push(
        await writeManifestChunk(store, {
          producer: owner,
          idempotencyKey: `c${index}`,
          entries: [`out_${index}`],
        }),
      );
    const list = await writeManifest(store, { producer: owner, idempotencyKey: 'm', chunks });
    const controller = new AbortController();
    let timerFired = false;
    setTimeout(() => {
      timerFired = true;
    }, 0);
    let read_ = 0;
    const walk = async () => {
      for await (const _ of manifestChunks(store, list, { ...read, signal: controller.signal })) {
        read_ += 1;
        if (read_ === 50) controller.abort(new Error('cancelled by the test'));
      }
    };
    await expect(walk()).rejects.toThrow('cancelled by the test');
    expect(read_).toBe(50);
    expect(timerFired).toBe(true);
  });
});
