import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidOutputEventError, InvalidStoreOptionError } from '../errors.js';
import { compactStream } from '../stream/compact-stream.js';
import { readStream, type StreamTarget } from '../stream/read-stream.js';
import {
  StreamClosedError,
  StreamCompactedError,
  StreamFlushError,
  StreamNotFoundError,
} from '../stream/stream-errors.js';
import { streamId, streamLabel, streamPartLabel } from '../stream/stream-keys.js';
import { openStream } from '../stream/stream-writer.js';
import { type StreamEvent, type TailStreamOptions, tailStream } from '../stream/tail-stream.js';
import type { OutputEvent, OutputRef, OutputStore, Producer } from '../types.js';
import { type ContractHarness, createContractHarness } from './contract-context.js';
import type { OutputStoreFactory } from './output-store-contract.js';

const producer: Producer = { ownerId: 'owner-a', runId: 'run-1', spawnId: 'spawn-1', agent: 'writer' };
const key = 'run-1/spawn-1/final-text';
const target: StreamTarget = { producer, key };

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

async function collect(
  store: OutputStore,
  on: StreamTarget,
  options: TailStreamOptions = { follow: false },
): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const event of tailStream(store, on, options)) events.push(event);
  return events;
}

function textOf(events: readonly StreamEvent[]): string {
  return Buffer.concat(events.flatMap((event) => (event.type === 'chunk' ? [event.bytes] : []))).toString(
    'utf8',
  );
}

async function chunkCount(store: OutputStore, attempt?: number): Promise<number> {
  return store.count({
    labels: {
      [streamLabel]: streamId(producer, key),
      [streamPartLabel]: 'chunk',
      ...(attempt === undefined ? {} : { 'wharf.stream.attempt': String(attempt) }),
    },
  });
}

/** A store whose `emit`s of chunks fail as `fail` says: before storing, or after (a lost reply). */
function flakyStore(
  store: OutputStore,
  fail: (event: OutputEvent) => 'before' | 'after' | undefined,
): OutputStore {
  return {
    emit: async (event) => {
      const how = fail(event);
      if (how === 'before') throw new Error('connection reset before the write');
      const ref = await store.emit(event);
      if (how === 'after') throw new Error('connection reset after the write');
      return ref;
    },
    stat: (ref) => store.stat(ref),
    get: (ref) => store.get(ref),
    openBody: (ref, range) => store.openBody(ref, range),
    list: (query) => store.list(query),
    count: (query) => store.count(query),
    findByIdempotencyKey: (scope, idempotencyKey) => store.findByIdempotencyKey(scope, idempotencyKey),
    delete: (ref) => store.delete(ref),
    gc: (policy) => store.gc(policy),
    close: async () => {},
  };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}

/**
 * The behaviour of durable output streams (`openStream`, `readStream`, `tailStream`,
 * `compactStream`) on a store, as a vitest suite: streams are built on the `OutputStore`
 * interface alone, so every backend must pass it. Timers are real; flush intervals short.
 *
 * @example
 * ```ts
 * import { runStreamContract } from '@wharf/output-store/testing';
 * runStreamContract('InMemoryOutputStore', (context) => new InMemoryOutputStore({ now: context.now }));
 * ```
 */
export function runStreamContract(name: string, factory: OutputStoreFactory): void {
  describe(`Stream contract: ${name}`, { timeout: 30_000 }, () => {
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

    it('batches appends into far fewer chunks, in order, and flushes a quiet buffer after flushMs', async () => {
      const writer = await openStream(store, {
        producer,
        key,
        attempt: 1,
        flushBytes: 1024,
        flushMs: 60_000,
      });
      const tokens = Array.from({ length: 1000 }, (_, index) => `tok${index} `);
      for (const token of tokens) await writer.append(token);
      const chunks = await chunkCount(store);
      expect(chunks).toBeGreaterThan(0);
      expect(chunks).toBeLessThanOrEqual(Math.ceil(tokens.join('').length / 1024));
      const quiet = await openStream(store, {
        producer,
        key: 'quiet',
        attempt: 1,
        flushBytes: 1 << 20,
        flushMs: 20,
      });
      await quiet.append('a little');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(quiet.chunks).toBe(1);
      const ref = await writer.seal();
      expect(Buffer.from((await store.get(ref)).body).toString('utf8')).toBe(tokens.join(''));
      expect(textOf(await collect(store, target))).toBe(tokens.join(''));
    });

    it('seals the same bytes, content type and name a direct emit of the whole text stores, under the key', async () => {
      const text = Array.from({ length: 3000 }, (_, index) => `line ${index}: naïve café — ✓\n`).join('');
      const direct = await store.emit({
        producer: { ...producer, spawnId: 'direct' },
        content: { kind: 'text', text },
        idempotencyKey: key,
        name: 'answer.md',
        contentType: 'text/markdown',
        labels: { task: 'draft' },
      });
      const writer = await openStream(store, {
        producer,
        key,
        attempt: 1,
        name: 'answer.md',
        contentType: 'text/markdown',
        labels: { task: 'draft' },
        flushBytes: 4096,
        flushMs: 20,
      });
      for (let offset = 0; offset < text.length; offset += 37)
        await writer.append(text.slice(offset, offset + 37));
      const sealed = await store.stat(await writer.seal());
      const expected = await store.stat(direct);
      expect(sealed.sizeBytes).toBe(Buffer.byteLength(text));
      expect(sha256((await store.get(sealed)).body)).toBe(sha256(Buffer.from(text, 'utf8')));
      expect({
        sha256: sealed.sha256,
        size: sealed.sizeBytes,
        type: sealed.contentType,
        name: sealed.name,
      }).toEqual({
        sha256: expected.sha256,
        size: expected.sizeBytes,
        type: expected.contentType,
        name: expected.name,
      });
      expect(sealed.idempotencyKey).toBe(key);
      expect(sealed.labels).toMatchObject({
        task: 'draft',
        [streamLabel]: streamId(producer, key),
        [streamPartLabel]: 'seal',
        'wharf.stream.attempt': '1',
      });
      expect((await store.findByIdempotencyKey(producer, key))?.outId).toBe(sealed.outId);
      const plain = await openStream(store, { producer, key: 'plain', attempt: 0 });
      await plain.append(Uint8Array.from(Buffer.from('bytes too')));
      const plainRecord = await store.stat(await plain.seal());
      expect(plainRecord.contentType).toBe(
        (
          await store.stat(
            await store.emit({ producer, content: { kind: 'text', text: 'x' }, idempotencyKey: 'x' }),
          )
        ).contentType,
      );
      expect((await readStream(store, target)).current).toMatchObject({ attempt: 1, state: 'sealed' });
    });

    it('stores a chunk whose reply was lost once, and a writer reopened after a crash goes on at the next seq', async () => {
      let lose = true;
      const flaky = flakyStore(store, (event) => {
        if (event.labels?.['wharf.stream.seq'] === '1' && lose) {
          lose = false;
          return 'after';
        }
        return undefined;
      });
      const first = await openStream(flaky, { producer, key, attempt: 1, flushBytes: 4, flushMs: 60_000 });
      await first.append('one ');
      const failed = await rejection(first.append('two '));
      expect(StreamFlushError.isInstance(failed)).toBe(true);
      expect((failed as StreamFlushError).message).toContain(streamId(producer, key));
      expect((failed as StreamFlushError).seq).toBe(1);
      await first.flush(); // the same chunk again, under the same key: no second output
      expect(await chunkCount(store)).toBe(2);
      await first.append('xy'); // buffered below the threshold: the crash takes it
      // The worker dies here; its retry opens the same attempt again.
      const second = await openStream(store, { producer, key, attempt: 1, flushBytes: 4, flushMs: 60_000 });
      expect(second.chunks).toBe(2);
      await second.append('three');
      const ref = await second.seal();
      expect(Buffer.from((await store.get(ref)).body).toString()).toBe('one two three');
      expect(await chunkCount(store)).toBe(3);
      expect(textOf(await collect(store, target))).toBe('one two three');
    });

    it('makes a new attempt current and never mixes the old text into it', async () => {
      const old = await openStream(store, { producer, key, attempt: 1, flushBytes: 1, flushMs: 60_000 });
      await old.append('OLD TEXT ');
      await old.append('MORE OLD');
      const retry = await openStream(store, { producer, key, attempt: 2, flushBytes: 1, flushMs: 60_000 });
      const snapshot = await readStream(store, target);
      expect(snapshot.current).toMatchObject({ attempt: 2, state: 'open' });
      expect(snapshot.attempts[0]).toMatchObject({
        attempt: 1,
        state: 'abandoned',
        reason: 'superseded by attempt 2',
      });
      await retry.append('new ');
      await old.append(' late write of a stale worker');
      await retry.append('text');
      const ref = await retry.seal();
      expect(Buffer.from((await store.get(ref)).body).toString()).toBe('new text');
      const events = await collect(store, target);
      expect(events[0]).toEqual({
        type: 'attempt',
        attempt: 2,
        previous: { attempt: 1, state: 'abandoned', reason: 'superseded by attempt 2' },
      });
      expect(textOf(events)).toBe('new text');
      expect(events.at(-1)).toEqual({ type: 'sealed', attempt: 2, ref });
      // A reader that followed attempt 1 is told it was replaced, then gets attempt 2 from its start.
      const resumed = await collect(store, target, { follow: false, after: { attempt: 1, seq: 0 } });
      expect(textOf(resumed)).toBe('new text');
    });

    it('resumes a tail after a seq without a gap or a repeat', async () => {
      const writer = await openStream(store, {
        producer,
        key,
        attempt: 3,
        flushBytes: 1 << 20,
        flushMs: 60_000,
      });
      for (const piece of ['a0', 'b1', 'c2', 'd3', 'e4']) {
        await writer.append(piece);
        await writer.flush();
      }
      const all = (await collect(store, target)).filter((event) => event.type === 'chunk');
      expect(all.map((event) => event.type === 'chunk' && event.seq)).toEqual([0, 1, 2, 3, 4]);
      const rest = await collect(store, target, { follow: false, after: { attempt: 3, seq: 2 } });
      expect(
        rest.filter((event) => event.type === 'chunk').map((event) => event.type === 'chunk' && event.seq),
      ).toEqual([3, 4]);
      expect(textOf(rest)).toBe('d3e4');
      await writer.seal();
      const end = await collect(store, target, { follow: false, after: { attempt: 3, seq: 4 } });
      expect(end.map((event) => event.type)).toEqual(['attempt', 'sealed']);
    });

    it('follows a writer live with a concurrent reader until the seal', async () => {
      const writer = await openStream(store, { producer, key, attempt: 1, flushBytes: 1 << 20, flushMs: 15 });
      const controller = new AbortController();
      const seen: { at: number; event: StreamEvent }[] = [];
      const reading = (async () => {
        for await (const event of tailStream(store, target, { intervalMs: 10, signal: controller.signal }))
          seen.push({ at: Date.now(), event });
      })();
      const pieces = Array.from({ length: 30 }, (_, index) => `piece ${index}\n`);
      for (const piece of pieces) {
        await writer.append(piece);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const sealedAt = Date.now();
      const ref = await writer.seal();
      const timer = setTimeout(() => controller.abort(), 10_000);
      await reading;
      clearTimeout(timer);
      const events = seen.map((entry) => entry.event);
      expect(textOf(events)).toBe(pieces.join(''));
      expect(events.at(-1)).toEqual({ type: 'sealed', attempt: 1, ref });
      const chunkTimes = seen.filter((entry) => entry.event.type === 'chunk').map((entry) => entry.at);
      expect(chunkTimes.length).toBeGreaterThan(3);
      // The reader saw text while the writer was still writing, not all of it at the end.
      expect(chunkTimes[0]).toBeLessThan(sealedAt - 100);
    });

    it('stops following when its signal fires', async () => {
      const writer = await openStream(store, { producer, key, attempt: 1, flushMs: 10 });
      await writer.append('open and quiet');
      const events: StreamEvent[] = [];
      for await (const event of tailStream(store, target, {
        intervalMs: 10,
        signal: AbortSignal.timeout(300),
      }))
        events.push(event);
      expect(textOf(events)).toBe('open and quiet');
      expect(events.some((event) => event.type === 'sealed')).toBe(false);
    });

    it('marks an abandoned attempt, with its reason, and refuses writes after seal or abandon', async () => {
      const writer = await openStream(store, { producer, key, attempt: 1, flushMs: 10 });
      await writer.append('partial');
      await writer.abandon('model provider failed');
      expect(writer.state).toBe('abandoned');
      const closed = await rejection(writer.append('more'));
      expect(StreamClosedError.isInstance(closed)).toBe(true);
      expect(closed).toMatchObject({ code: 'INVALID_EVENT', state: 'abandoned', attempt: 1 });
      expect((await readStream(store, target)).current).toMatchObject({
        state: 'abandoned',
        reason: 'model provider failed',
      });
      const events = await collect(store, target);
      expect(events.map((event) => event.type)).toEqual(['attempt', 'chunk', 'abandoned']);
      const reopened = await openStream(store, { producer, key, attempt: 1 });
      expect(reopened.state).toBe('abandoned');
      const sealer = await openStream(store, { producer, key: 'other', attempt: 1 });
      const ref = await sealer.seal();
      expect(await sealer.seal()).toEqual(ref);
      expect(StreamClosedError.isInstance(await rejection(sealer.append('x')))).toBe(true);
      expect(StreamClosedError.isInstance(await rejection(sealer.abandon('late')))).toBe(true);
    });

    it('refuses a missing stream, bad options and stream labels on a plain emit, with typed errors', async () => {
      const missing = await rejection(readStream(store, target));
      expect(StreamNotFoundError.isInstance(missing)).toBe(true);
      expect(missing).toMatchObject({ code: 'NOT_FOUND', stream: streamId(producer, key) });
      expect(StreamNotFoundError.isInstance(await rejection(collect(store, { stream: 'str_nope' })))).toBe(
        true,
      );
      for (const options of [
        { attempt: -1 },
        { attempt: 1.5 },
        { flushBytes: 0 },
        { flushMs: -5 },
        { labels: { 'wharf.stream': 'forged' } },
        { contentType: 'application/vnd.wharf.manifest+json' },
      ])
        expect(
          InvalidStoreOptionError.isInstance(
            await rejection(openStream(store, { producer, key, attempt: 1, ...options })),
          ),
        ).toBe(true);
      const forged = await rejection(
        store.emit({
          producer,
          content: { kind: 'text', text: 'forged' },
          idempotencyKey: 'forged',
          labels: { [streamLabel]: streamId(producer, key), 'wharf.stream.seq': '0' },
        }),
      );
      expect(InvalidOutputEventError.isInstance(forged)).toBe(true);
      const failing = await openStream(
        flakyStore(store, (event) => (event.labels?.[streamPartLabel] === 'chunk' ? 'before' : undefined)),
        { producer, key, attempt: 1, flushMs: 10 },
      );
      await failing.append('kept');
      await new Promise((resolve) => setTimeout(resolve, 100));
      // The timed flush failed: the next append says so, and the bytes are still there.
      const error = await rejection(failing.append('next'));
      expect(StreamFlushError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ code: 'STORAGE_FAILURE', seq: 0 });
      expect(StreamFlushError.isInstance(await rejection(failing.seal()))).toBe(true);
      expect(await chunkCount(store)).toBe(0);
    });

    it('compacts the chunks of sealed and abandoned attempts, after which a sealed one reads as its seal', async () => {
      const old = await openStream(store, { producer, key, attempt: 1, flushBytes: 2, flushMs: 60_000 });
      await old.append('old');
      const writer = await openStream(store, { producer, key, attempt: 2, flushBytes: 2, flushMs: 60_000 });
      for (const piece of ['ab', 'cd', 'ef']) await writer.append(piece);
      expect(await compactStream(store, target)).toEqual({ removed: 1, freedBytes: 3 });
      const ref: OutputRef = await writer.seal();
      expect(await compactStream(store, target)).toEqual({ removed: 3, freedBytes: 6 });
      expect(await chunkCount(store)).toBe(0);
      const snapshot = await readStream(store, target);
      expect(snapshot.current).toMatchObject({
        state: 'sealed',
        compacted: true,
        sealedChunks: 3,
        sealOutId: ref.outId,
      });
      expect(snapshot.attempts[0]).toMatchObject({ attempt: 1, state: 'abandoned' });
      const events = await collect(store, target);
      expect(textOf(events)).toBe('abcdef');
      expect(events.at(-1)).toEqual({ type: 'sealed', attempt: 2, ref });
      const inside = await rejection(
        collect(store, target, { follow: false, after: { attempt: 2, seq: 0 } }),
      );
      expect(StreamCompactedError.isInstance(inside)).toBe(true);
      expect(
        (await collect(store, target, { after: { attempt: 2, seq: 2 } })).map((event) => event.type),
      ).toEqual(['attempt', 'sealed']);
      expect(Buffer.from((await store.get(ref)).body).toString()).toBe('abcdef');
    });
  });
}
