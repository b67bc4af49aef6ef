import { createHash } from 'node:crypto';
import { link, mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OutputPathError } from '../errors.js';
import { OutputStoreError } from '../output-store-error.js';
import type { OutputEvent, OutputRef, OutputStore, Producer } from '../types.js';
import { type ContractContext, type ContractHarness, createContractHarness } from './contract-context.js';

/**
 * Builds the store under test for one contract test.
 *
 * @example
 * ```ts
 * const factory: OutputStoreFactory = (context) => new InMemoryOutputStore({ now: context.now });
 * ```
 */
export type OutputStoreFactory = (context: ContractContext) => OutputStore | Promise<OutputStore>;

const producer: Producer = { ownerId: 'owner-a', runId: 'run-1', spawnId: 'spawn-1', agent: 'writer' };

function textEvent(text: string, key: string, extra: Partial<OutputEvent> = {}): OutputEvent {
  return { producer, content: { kind: 'text', text }, idempotencyKey: key, ...extra };
}

async function readAll(stream: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (OutputStoreError.isInstance(error)) return error.code;
    throw error;
  }
  throw new Error('expected the call to fail');
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

async function* chunked(bytes: Buffer, size: number): AsyncGenerator<Uint8Array> {
  for (let offset = 0; offset < bytes.byteLength; offset += size) yield bytes.subarray(offset, offset + size);
}

/**
 * The behavioural contract every {@link OutputStore} must meet, as a vitest suite. Call it
 * from a test file with a factory that builds a fresh store for each test.
 *
 * @example
 * ```ts
 * import { runOutputStoreContract } from '@wharf/output-store/testing';
 * runOutputStoreContract('InMemoryOutputStore', (context) => new InMemoryOutputStore({
 *   now: context.now, allowedRoots: [context.allowedRoot], maxBodyBytes: context.maxBodyBytes,
 * }));
 * ```
 */
export function runOutputStoreContract(name: string, factory: OutputStoreFactory): void {
  describe(`OutputStore contract: ${name}`, () => {
    let harness: ContractHarness;
    let store: OutputStore;

    beforeEach(async () => {
      harness = await createContractHarness();
      store = await factory(harness);
    });
    afterEach(async () => {
      await store.close();
      await harness.dispose();
    });

    it('stores text and returns a record describing it', async () => {
      const ref = await store.emit(textEvent('hello', 'k1', { name: 'greeting.txt', labels: { step: 'a' } }));
      expect(ref.outId).toMatch(/^out_/);
      const record = await store.stat(ref);
      expect(record).toMatchObject({
        outId: ref.outId,
        producer,
        name: 'greeting.txt',
        contentType: 'text/plain; charset=utf-8',
        sizeBytes: 5,
        sha256: sha256(Buffer.from('hello')),
        createdAt: new Date(harness.now()).toISOString(),
        labels: { step: 'a' },
        idempotencyKey: 'k1',
      });
      expect(Buffer.from((await store.get(ref)).body).toString()).toBe('hello');
    });

    it('stores JSON, bytes and streams with the right default content types', async () => {
      const json = await store.emit({
        producer,
        content: { kind: 'json', value: { a: [1, 2] } },
        idempotencyKey: 'j',
      });
      const bytes = await store.emit({
        producer,
        content: { kind: 'bytes', bytes: Uint8Array.of(0, 255, 7) },
        idempotencyKey: 'b',
      });
      const stream = await store.emit({
        producer,
        content: { kind: 'stream', stream: chunked(Buffer.from('abcdef'), 2) },
        idempotencyKey: 's',
      });
      expect((await store.stat(json)).contentType).toBe('application/json');
      expect(Buffer.from((await store.get(json)).body).toString()).toBe('{"a":[1,2]}');
      expect([...(await store.get(bytes)).body]).toEqual([0, 255, 7]);
      expect((await store.stat(bytes)).contentType).toBe('application/octet-stream');
      expect(Buffer.from((await store.get(stream)).body).toString()).toBe('abcdef');
    });

    it('round-trips a body larger than the usual inline threshold', async () => {
      const body = Buffer.alloc(300 * 1024);
      for (let index = 0; index < body.length; index++) body[index] = (index * 31) % 251;
      const ref = await store.emit({
        producer,
        content: { kind: 'stream', stream: chunked(body, 7000) },
        idempotencyKey: 'big',
      });
      const record = await store.stat(ref);
      expect(record.sizeBytes).toBe(body.length);
      expect(record.sha256).toBe(sha256(body));
      expect(Buffer.from((await store.get(ref)).body).equals(body)).toBe(true);
      const opened = await store.openBody(ref, { start: 1000, end: 200_000 });
      expect((await readAll(opened.stream)).equals(body.subarray(1000, 200_000))).toBe(true);
    });

    it('returns the same ref for a retried idempotency key and stores nothing twice', async () => {
      const first = await store.emit(textEvent('same', 'retry'));
      const second = await store.emit(textEvent('same', 'retry'));
      expect(second).toEqual(first);
      expect((await store.list({})).records).toHaveLength(1);
      expect(await store.findByIdempotencyKey(producer, 'retry')).toEqual(first);
      expect(await store.findByIdempotencyKey({ ...producer, ownerId: 'owner-b' }, 'retry')).toBeUndefined();
    });

    it('settles concurrent emits of one key on one ref', async () => {
      const refs = await Promise.all([1, 2, 3, 4].map(() => store.emit(textEvent('parallel', 'concurrent'))));
      expect(new Set(refs.map((ref) => ref.outId)).size).toBe(1);
      expect((await store.list({})).records).toHaveLength(1);
    });

    it('rejects a reused key with a different body as a conflict and keeps the original', async () => {
      const first = await store.emit(textEvent('original', 'clash'));
      expect(await codeOf(store.emit(textEvent('changed', 'clash')))).toBe('IDEMPOTENCY_CONFLICT');
      expect(Buffer.from((await store.get(first)).body).toString()).toBe('original');
    });

    it('scopes idempotency keys to the owner, run and spawn and never answers with another scope', async () => {
      const mine = await store.emit(textEvent('same bytes', 'shared-key'));
      const others: [Producer, string][] = [
        [{ ...producer, ownerId: 'owner-b' }, 'same bytes'],
        [{ ...producer, runId: 'run-2' }, 'same bytes'],
        [{ ...producer, spawnId: 'spawn-2' }, 'same bytes'],
        [{ ...producer, spawnId: 'spawn-3' }, 'different bytes'],
      ];
      const seen = new Set([mine.outId]);
      for (const [scope, text] of others) {
        const label = `${JSON.stringify(scope)} ${text}`;
        expect(await store.findByIdempotencyKey(scope, 'shared-key'), label).toBeUndefined();
        // Neither a retry answer naming `mine` nor a conflict naming it: an output of its own.
        const own = await store.emit({ ...textEvent(text, 'shared-key'), producer: scope });
        expect(seen.has(own.outId), label).toBe(false);
        seen.add(own.outId);
        expect((await store.stat(own)).producer, label).toEqual(scope);
        expect(await store.findByIdempotencyKey(scope, 'shared-key'), label).toEqual(own);
        expect(await store.emit({ ...textEvent(text, 'shared-key'), producer: scope }), label).toEqual(own);
        expect(
          await codeOf(store.emit({ ...textEvent('changed', 'shared-key'), producer: scope })),
          label,
        ).toBe('IDEMPOTENCY_CONFLICT');
      }
      expect(await store.findByIdempotencyKey(producer, 'shared-key')).toEqual(mine);
      expect(Buffer.from((await store.get(mine)).body).toString()).toBe('same bytes');
      expect(await store.count({})).toBe(1 + others.length);
    });

    it('reports unknown, deleted and expired outputs with their reason', async () => {
      const missing = { outId: 'out_AAAAAAAAAAAAAAAA' };
      await expect(store.stat(missing)).rejects.toMatchObject({ code: 'NOT_FOUND', reason: 'unknown' });
      const ref = await store.emit(textEvent('bye', 'del'));
      expect(await store.delete(ref)).toBe(true);
      expect(await store.delete(ref)).toBe(false);
      await expect(store.get(ref)).rejects.toMatchObject({ code: 'NOT_FOUND', reason: 'deleted' });
      const shortLived = await store.emit(textEvent('soon gone', 'ttl', { ttlMs: 1000 }));
      harness.advance(1001);
      await expect(store.openBody(shortLived)).rejects.toMatchObject({
        code: 'NOT_FOUND',
        reason: 'expired',
      });
      expect((await store.list({})).records).toHaveLength(0);
    });

    it("counts one spawn's live outputs only", async () => {
      const spawn = { ...producer, spawnId: 'counted' };
      for (let index = 0; index < 3; index++) {
        await store.emit({ ...textEvent(`c${index}`, `count-${index}`), producer: spawn });
      }
      await store.emit({ ...textEvent('brief', 'count-ttl', { ttlMs: 1000 }), producer: spawn });
      await store
        .emit({ ...textEvent('gone', 'count-gone'), producer: spawn })
        .then((ref) => store.delete(ref));
      await store.emit({
        ...textEvent('other spawn', 'count-0'),
        producer: { ...spawn, spawnId: 'elsewhere' },
      });
      await store.emit({
        ...textEvent('other owner', 'count-0'),
        producer: { ...spawn, ownerId: 'owner-z' },
      });
      await store.emit({ ...textEvent('other run', 'count-0'), producer: { ...spawn, runId: 'run-z' } });
      const scope = { ownerId: spawn.ownerId, runId: spawn.runId, spawnId: spawn.spawnId };
      expect(await store.count(scope)).toBe(4);
      harness.advance(1001);
      expect(await store.count(scope)).toBe(3);
      expect(await store.count({ ...scope, labels: {} })).toBe(3);
    });

    it('lets a deleted key be used again for a new output', async () => {
      const ref = await store.emit(textEvent('v1', 'again'));
      await store.delete(ref);
      const fresh = await store.emit(textEvent('v2', 'again'));
      expect(fresh.outId).not.toBe(ref.outId);
      expect(Buffer.from((await store.get(fresh)).body).toString()).toBe('v2');
    });

    it('serves byte ranges and refuses ranges outside the body', async () => {
      const ref = await store.emit(textEvent('0123456789', 'range'));
      const middle = await store.openBody(ref, { start: 2, end: 5 });
      expect(middle).toMatchObject({ start: 2, end: 5 });
      expect((await readAll(middle.stream)).toString()).toBe('234');
      expect((await readAll((await store.openBody(ref, { start: 10 })).stream)).length).toBe(0);
      expect((await readAll((await store.openBody(ref, { start: 7 })).stream)).toString()).toBe('789');
      expect((await readAll((await store.openBody(ref, { start: 0, end: 0 })).stream)).length).toBe(0);
      expect((await readAll((await store.openBody(ref, { end: 2 })).stream)).toString()).toBe('01');
      expect((await readAll((await store.openBody(ref)).stream)).toString()).toBe('0123456789');
      expect(await codeOf(store.openBody(ref, { start: 4, end: 11 }))).toBe('INVALID_RANGE');
      expect(await codeOf(store.openBody(ref, { start: 6, end: 5 }))).toBe('INVALID_RANGE');
    });

    it('lists by owner, run, spawn and labels, oldest first, across pages', async () => {
      const refs: OutputRef[] = [];
      for (let index = 0; index < 7; index++) {
        const spawnId = `spawn-${index % 2}`;
        refs.push(
          await store.emit({
            ...textEvent(`n${index}`, `list-${index}`, { labels: { parity: String(index % 2) } }),
            producer: { ...producer, spawnId },
          }),
        );
        harness.advance(1);
      }
      await store.emit({
        ...textEvent('other', 'other-owner'),
        producer: { ...producer, ownerId: 'owner-b', runId: 'run-2' },
      });
      const seen: string[] = [];
      let page = await store.list({ ownerId: 'owner-a', limit: 3 });
      seen.push(...page.records.map((record) => record.outId));
      while (page.nextCursor) {
        page = await store.list({ ownerId: 'owner-a', limit: 3, cursor: page.nextCursor });
        seen.push(...page.records.map((record) => record.outId));
      }
      expect(seen).toEqual(refs.map((ref) => ref.outId));
      const odd = await store.list({ spawnId: 'spawn-1', labels: { parity: '1' } });
      expect(odd.records.map((record) => record.outId)).toEqual(
        [refs[1], refs[3], refs[5]].map((ref) => ref?.outId),
      );
      expect((await store.list({ runId: 'run-2' })).records).toHaveLength(1);
      expect(await store.count({ ownerId: 'owner-a' })).toBe(7);
      expect(await store.count({ spawnId: 'spawn-1', labels: { parity: '1' } })).toBe(3);
      expect(await store.count({})).toBe(8);
      expect(await codeOf(store.list({ cursor: 'not-a-cursor' }))).toBe('INVALID_EVENT');
      expect(await codeOf(store.list({ limit: 0 }))).toBe('INVALID_EVENT');
    });

    it('rejects malformed events naming the field and stores nothing', async () => {
      const bad = [
        { ...textEvent('x', ''), idempotencyKey: '' },
        { ...textEvent('x', 'k'), producer: { ...producer, runId: '' } },
        { ...textEvent('x', 'k'), contentType: 'not a type' },
        { ...textEvent('x', 'k'), content: { kind: 'carrier-pigeon' } },
        { ...textEvent('x', 'k'), labels: { step: 3 } },
        { ...textEvent('x', 'k'), ttlMs: -5 },
      ] as unknown as OutputEvent[];
      const fields: string[] = [];
      for (const event of bad) {
        try {
          await store.emit(event);
        } catch (error) {
          expect(OutputStoreError.isInstance(error) && error.code).toBe('INVALID_EVENT');
          fields.push((error as { field: string }).field);
        }
      }
      expect(fields).toEqual([
        'idempotencyKey',
        'producer.runId',
        'contentType',
        'content.kind',
        'labels.step',
        'ttlMs',
      ]);
      expect((await store.list({})).records).toHaveLength(0);
    });

    it('refuses NUL and lone surrogates in ids, keys, names, labels and filters, naming the field', async () => {
      const nul = 'a\u0000b';
      const lone = 'a\ud800b';
      const bad: [OutputEvent, string][] = [
        [{ ...textEvent('x', 'k'), producer: { ...producer, runId: nul } }, 'producer.runId'],
        [{ ...textEvent('x', 'k'), producer: { ...producer, ownerId: lone } }, 'producer.ownerId'],
        [{ ...textEvent('x', 'k'), producer: { ...producer, spawnId: nul } }, 'producer.spawnId'],
        [{ ...textEvent('x', 'k'), producer: { ...producer, agent: lone } }, 'producer.agent'],
        [textEvent('x', nul), 'idempotencyKey'],
        [textEvent('x', lone), 'idempotencyKey'],
        [textEvent('x', 'k', { name: nul }), 'name'],
        [textEvent('x', 'k', { labels: { [nul]: 'v' } }), 'labels key'],
        [textEvent('x', 'k', { labels: { step: lone } }), 'labels.step'],
        [textEvent('x', 'k', { contentType: `text/plain; charset=${nul}` }), 'contentType'],
      ];
      for (const [event, field] of bad) {
        const error = await store.emit(event).catch((caught: unknown) => caught);
        expect(error, field).toMatchObject({ code: 'INVALID_EVENT', field });
      }
      for (const [query, field] of [
        [{ runId: nul }, 'runId'],
        [{ ownerId: lone }, 'ownerId'],
        [{ spawnId: nul }, 'spawnId'],
        [{ labels: { step: nul } }, 'labels.step'],
      ] as const) {
        expect(await store.list(query).catch((caught: unknown) => caught), field).toMatchObject({
          code: 'INVALID_EVENT',
          field,
        });
        expect(await store.count(query).catch((caught: unknown) => caught), field).toMatchObject({
          code: 'INVALID_EVENT',
          field,
        });
      }
      expect(await codeOf(store.findByIdempotencyKey(producer, nul))).toBe('INVALID_EVENT');
      expect(await codeOf(store.findByIdempotencyKey({ ...producer, runId: lone }, 'k'))).toBe(
        'INVALID_EVENT',
      );
      expect(await codeOf(store.gc({ runId: nul }))).toBe('INVALID_EVENT');
      // A surrogate pair is one well-formed character and is stored as is.
      const ref = await store.emit(textEvent('x', 'pair-😀', { name: '😀', labels: { emoji: '😀' } }));
      expect(await store.stat(ref)).toMatchObject({
        name: '😀',
        idempotencyKey: 'pair-😀',
        labels: { emoji: '😀' },
      });
      expect(await store.count({})).toBe(1);
    });

    it('refuses a body over the limit and stores nothing', async () => {
      const oversized = Buffer.alloc(harness.maxBodyBytes + 1, 1);
      const error = await store
        .emit({
          producer,
          content: { kind: 'stream', stream: chunked(oversized, 65536) },
          idempotencyKey: 'huge',
        })
        .catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: 'TOO_LARGE', limitBytes: harness.maxBodyBytes });
      expect(await store.findByIdempotencyKey(producer, 'huge')).toBeUndefined();
      expect((await store.list({})).records).toHaveLength(0);
    });

    it('copies file content in so later changes to the source do not leak', async () => {
      const path = join(harness.allowedRoot, 'report.md');
      await writeFile(path, 'first version');
      const ref = await store.emit({ producer, content: { kind: 'file', path }, idempotencyKey: 'file' });
      await writeFile(path, 'second version, longer');
      expect(Buffer.from((await store.get(ref)).body).toString()).toBe('first version');
      await mkdir(join(harness.allowedRoot, 'sub'));
      await symlink(path, join(harness.allowedRoot, 'sub', 'link.md'));
      const viaLink = await store.emit({
        producer,
        content: { kind: 'file', path: join(harness.allowedRoot, 'sub', 'link.md') },
        idempotencyKey: 'link',
      });
      expect(Buffer.from((await store.get(viaLink)).body).toString()).toBe('second version, longer');
    });

    it('rejects traversal, paths outside the roots, escaping symlinks and non-regular files', async () => {
      const outside = join(harness.scratchDir, 'secret.txt');
      await writeFile(outside, 'secret');
      await symlink(outside, join(harness.allowedRoot, 'escape.txt'));
      await mkdir(join(harness.allowedRoot, 'folder'));
      const cases: [string, string][] = [
        [`${harness.allowedRoot}/../scratch/secret.txt`, 'traversal'],
        [`${harness.allowedRoot}/folder/../../scratch/secret.txt`, 'traversal'],
        [outside, 'outside-roots'],
        ['relative/path.txt', 'not-absolute'],
        [join(harness.allowedRoot, 'escape.txt'), 'symlink-escape'],
        [join(harness.allowedRoot, 'folder'), 'not-regular-file'],
        [join(harness.allowedRoot, 'absent.txt'), 'missing'],
      ];
      for (const [path, reason] of cases) {
        const error = await store
          .emit({ producer, content: { kind: 'file', path }, idempotencyKey: `p-${reason}` })
          .catch((caught: unknown) => caught);
        expect(error, path).toMatchObject({ code: 'PATH_REJECTED', reason });
      }
      expect((await store.list({})).records).toHaveLength(0);
    });

    it('refuses a hard link inside a root to a file outside it, and symlinked folders that escape', async () => {
      const outside = join(harness.scratchDir, 'secret.txt');
      await writeFile(outside, 'secret');
      await link(outside, join(harness.allowedRoot, 'hard.txt'));
      await writeFile(join(harness.allowedRoot, 'twin-a.txt'), 'two names, both inside');
      await link(join(harness.allowedRoot, 'twin-a.txt'), join(harness.allowedRoot, 'twin-b.txt'));
      await symlink(harness.scratchDir, join(harness.allowedRoot, 'out-dir'));
      await mkdir(join(harness.allowedRoot, 'in'));
      const cases: [string, string][] = [
        [join(harness.allowedRoot, 'hard.txt'), 'hard-link'],
        [join(harness.allowedRoot, 'twin-a.txt'), 'hard-link'],
        [join(harness.allowedRoot, 'out-dir', 'secret.txt'), 'symlink-escape'],
        [`${harness.allowedRoot}/in/../hard.txt`, 'traversal'],
        [`${harness.allowedRoot}/in/..`, 'traversal'],
      ];
      for (const [path, reason] of cases) {
        const error = await store
          .emit({ producer, content: { kind: 'file', path }, idempotencyKey: `h-${path}` })
          .catch((caught: unknown) => caught);
        expect(error, path).toMatchObject({ code: 'PATH_REJECTED', reason });
        expect(OutputPathError.isInstance(error), path).toBe(true);
      }
      expect((await store.list({})).records).toHaveLength(0);
      await writeFile(join(harness.allowedRoot, 'single.txt'), 'one name');
      const single = await store.emit({
        producer,
        content: { kind: 'file', path: join(harness.allowedRoot, 'single.txt') },
        idempotencyKey: 'single',
      });
      expect(Buffer.from((await store.get(single)).body).toString()).toBe('one name');
    });

    it('applies retention by age, by run and by a total-bytes cap, oldest first', async () => {
      const old = await store.emit(textEvent('old-body', 'old'));
      harness.advance(10_000);
      const doomedRun = await store.emit({
        ...textEvent('run-body', 'run'),
        producer: { ...producer, runId: 'run-doomed' },
      });
      const a = await store.emit(textEvent('aaaaaaaaaa', 'a'));
      harness.advance(1);
      const b = await store.emit(textEvent('bbbbbbbbbb', 'b'));
      harness.advance(1);
      const c = await store.emit(textEvent('cccccccccc', 'c'));
      const result = await store.gc({ olderThanMs: 5000, runId: 'run-doomed', maxTotalBytes: 20 });
      expect(result).toEqual({
        removed: 3,
        freedBytes: 8 + 8 + 10,
        orphanBodies: { removed: 0, freedBytes: 0 },
      });
      await expect(store.stat(old)).rejects.toMatchObject({ reason: 'expired' });
      await expect(store.stat(doomedRun)).rejects.toMatchObject({ reason: 'deleted' });
      await expect(store.stat(a)).rejects.toMatchObject({ reason: 'evicted' });
      expect((await store.stat(b)).sizeBytes).toBe(10);
      expect((await store.stat(c)).sizeBytes).toBe(10);
      expect(await store.gc({})).toEqual({
        removed: 0,
        freedBytes: 0,
        orphanBodies: { removed: 0, freedBytes: 0 },
      });
    });

    it('keeps bodies and ranges exact for varied content', async () => {
      let seed = 42;
      const next = () => {
        seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
        return seed;
      };
      for (let round = 0; round < 40; round++) {
        const bytes = Uint8Array.from({ length: next() % 2048 }, () => next() % 256);
        const ref = await store.emit({
          producer,
          content: { kind: 'bytes', bytes },
          idempotencyKey: `varied-${round}`,
        });
        expect((await store.stat(ref)).sha256).toBe(sha256(bytes));
        const start = bytes.length === 0 ? 0 : next() % bytes.length;
        const end = start + (next() % (bytes.length - start + 1));
        const opened = await store.openBody(ref, { start, end });
        expect((await readAll(opened.stream)).equals(Buffer.from(bytes.subarray(start, end)))).toBe(true);
      }
    });

    it('fails every call once closed', async () => {
      const ref = await store.emit(textEvent('x', 'closed'));
      await store.close();
      expect(await codeOf(store.stat(ref))).toBe('STORAGE_FAILURE');
      expect(await codeOf(store.emit(textEvent('y', 'after-close')))).toBe('STORAGE_FAILURE');
    });
  });
}
