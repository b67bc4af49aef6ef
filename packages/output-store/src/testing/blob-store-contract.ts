import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BlobStore, StoredBlob } from '../blobs/blob-store.js';
import { BlobNotFoundError, BlobStoreClaimedError, BlobStoreUnmarkedError } from '../errors.js';
import { OutputStoreError } from '../output-store-error.js';

/**
 * What the blob contract hands a factory: a scratch directory of its own and a fresh,
 * unique name (for a bucket prefix, a schema, a folder) so no two tests share blobs.
 *
 * @example
 * ```ts
 * const factory: BlobStoreFactory = (context) =>
 *   new LocalBlobStore({ root: join(context.scratchDir, context.namespace) });
 * ```
 */
export interface BlobContractContext {
  readonly scratchDir: string;
  readonly namespace: string;
}

/**
 * Builds the blob store under test for one contract test.
 *
 * @example
 * ```ts
 * const factory: BlobStoreFactory = (context) => new LocalBlobStore({ root: context.scratchDir });
 * ```
 */
export type BlobStoreFactory = (context: BlobContractContext) => BlobStore | Promise<BlobStore>;

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

async function readAll(stream: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

async function listed(blobs: BlobStore): Promise<string[]> {
  const addresses: string[] = [];
  for await (const blob of blobs.list()) addresses.push(blob.sha256);
  return addresses.sort();
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

/** Deterministic bytes of a given size, distinct per seed. */
function bodyOf(seed: string, size: number): Buffer {
  const out = Buffer.alloc(size);
  let block = createHash('sha256').update(seed).digest();
  for (let offset = 0; offset < size; offset += block.length) {
    block.copy(out, offset);
    block = createHash('sha256').update(block).digest();
  }
  return out;
}

/**
 * The behavioural contract of a {@link BlobStore}, as a vitest suite: put, open (whole and
 * ranges), has, remove, list (with sizes and times), idempotent and concurrent puts of one
 * address, typed `BlobNotFoundError` for missing bodies, refused malformed addresses, one
 * owner per location (`claim`: the same store again passes, another is refused, racing claims
 * of a fresh location have one winner), and closing. The factory must give a store on the
 * same location for the same context (the claim tests open a second handle).
 *
 * @example
 * ```ts
 * import { runBlobStoreContract } from '@wharf/output-store/testing';
 * runBlobStoreContract('LocalBlobStore', (context) => new LocalBlobStore({ root: context.scratchDir }));
 * ```
 */
export function runBlobStoreContract(name: string, factory: BlobStoreFactory): void {
  describe(`BlobStore contract: ${name}`, () => {
    let base: string;
    let blobs: BlobStore;
    let counter = 0;

    /** Writes `bytes` to a fresh source file and returns its path. */
    async function source(bytes: Uint8Array): Promise<string> {
      counter += 1;
      const path = join(base, `source-${counter}.part`);
      await writeFile(path, bytes);
      return path;
    }

    async function put(bytes: Uint8Array): Promise<string> {
      const address = sha256(bytes);
      await blobs.putFile(address, await source(bytes), bytes.byteLength);
      return address;
    }

    let context: BlobContractContext;

    beforeEach(async () => {
      base = await mkdtemp(join(tmpdir(), 'wharf-blob-contract-'));
      context = { scratchDir: join(base, 'scratch'), namespace: `t${randomBytes(6).toString('hex')}` };
      blobs = await factory(context);
    });
    afterEach(async () => {
      await blobs.close();
      await rm(base, { recursive: true, force: true });
    });

    it('names its location', () => {
      expect(typeof blobs.location).toBe('string');
      expect(blobs.location.length).toBeGreaterThan(0);
    });

    it('stores a file under its address, consumes the source and reads it back whole', async () => {
      const bytes = bodyOf('whole', 70_000);
      const path = await source(bytes);
      const address = sha256(bytes);
      expect(await blobs.has(address)).toBe(false);
      await blobs.putFile(address, path, bytes.byteLength);
      expect(existsSync(path)).toBe(false);
      expect(await blobs.has(address)).toBe(true);
      expect((await readAll(await blobs.open(address))).equals(bytes)).toBe(true);
    });

    it('serves byte ranges, empty ones included, and refuses ranges past the end', async () => {
      const bytes = bodyOf('ranges', 10_000);
      const address = await put(bytes);
      for (const [start, end] of [
        [0, 1],
        [1234, 5678],
        [9_999, 10_000],
        [0, 10_000],
        [500, 500],
        [10_000, 10_000],
      ] as const) {
        const got = await readAll(await blobs.open(address, { start, end }));
        expect(got.equals(bytes.subarray(start, end)), `${start}..${end}`).toBe(true);
      }
      expect(await codeOf(blobs.open(address, { start: 0, end: 10_001 }))).toBe('INVALID_RANGE');
    });

    it('round-trips an empty body and a multi-MiB one', async () => {
      const empty = await put(new Uint8Array(0));
      expect((await readAll(await blobs.open(empty))).length).toBe(0);
      const big = bodyOf('big', 3 * 2 ** 20 + 17);
      const address = await put(big);
      expect((await readAll(await blobs.open(address))).equals(big)).toBe(true);
      const middle = await readAll(await blobs.open(address, { start: 2 ** 20 - 5, end: 2 ** 21 + 9 }));
      expect(middle.equals(big.subarray(2 ** 20 - 5, 2 ** 21 + 9))).toBe(true);
    });

    it('treats a second put of the same address as a no-op that still consumes the source', async () => {
      const bytes = bodyOf('twice', 4096);
      const address = await put(bytes);
      const again = await source(bytes);
      await blobs.putFile(address, again, bytes.byteLength);
      expect(existsSync(again)).toBe(false);
      expect((await readAll(await blobs.open(address))).equals(bytes)).toBe(true);
      expect(await listed(blobs)).toEqual([address]);
    });

    it('lets concurrent puts of one address all succeed with one intact body', async () => {
      const bytes = bodyOf('race', 200_000);
      const address = sha256(bytes);
      const paths = await Promise.all(Array.from({ length: 8 }, () => source(bytes)));
      await Promise.all(paths.map((path) => blobs.putFile(address, path, bytes.byteLength)));
      for (const path of paths) expect(existsSync(path)).toBe(false);
      expect((await readAll(await blobs.open(address))).equals(bytes)).toBe(true);
      expect(await listed(blobs)).toEqual([address]);
    });

    it('lists exactly the stored addresses and forgets removed ones', async () => {
      const addresses = await Promise.all(
        ['a', 'b', 'c'].map((seed) => put(bodyOf(seed, 100 + seed.length))),
      );
      expect(await listed(blobs)).toEqual([...addresses].sort());
      const [first, ...rest] = addresses;
      await blobs.remove(first ?? '');
      expect(await listed(blobs)).toEqual(rest.sort());
    });

    it('removes a body: has turns false, open rejects with BlobNotFoundError, removing again is fine', async () => {
      const address = await put(bodyOf('gone', 2048));
      await blobs.remove(address);
      expect(await blobs.has(address)).toBe(false);
      const error = await blobs.open(address).catch((caught: unknown) => caught);
      expect(BlobNotFoundError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ code: 'BLOB_NOT_FOUND', sha256: address });
      await blobs.remove(address);
    });

    it('answers a never-stored address with has false and a typed BlobNotFoundError', async () => {
      const address = sha256(Buffer.from('never stored'));
      expect(await blobs.has(address)).toBe(false);
      const error = await blobs.open(address, { start: 0, end: 1 }).catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: 'BLOB_NOT_FOUND', sha256: address });
      expect(BlobNotFoundError.isInstance(error)).toBe(true);
    });

    it('refuses malformed addresses and a size that does not match the file, storing nothing', async () => {
      const bytes = bodyOf('bad', 64);
      for (const address of ['../../etc/passwd', sha256(bytes).toUpperCase(), 'abc', '']) {
        const path = await source(bytes);
        expect(await codeOf(blobs.putFile(address, path, bytes.byteLength)), address).toBe('INVALID_EVENT');
        expect(await codeOf(blobs.open(address)), address).toBe('INVALID_EVENT');
      }
      const path = await source(bytes);
      expect(await codeOf(blobs.putFile(sha256(bytes), path, bytes.byteLength + 1))).toBe('INVALID_EVENT');
      expect(existsSync(path)).toBe(false);
      expect(await listed(blobs)).toEqual([]);
    });

    it('lists each body with its size and when it was written', async () => {
      const before = Date.now();
      const bytes = bodyOf('listed', 1234);
      const address = await put(bytes);
      const entries: StoredBlob[] = [];
      for await (const blob of blobs.list()) entries.push(blob);
      expect(entries).toHaveLength(1);
      expect(entries[0]).toMatchObject({ sha256: address, sizeBytes: 1234 });
      // Some servers keep whole seconds.
      expect(entries[0]?.modifiedMs).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 - 1000);
      expect(entries[0]?.modifiedMs).toBeLessThanOrEqual(Date.now() + 1000);
    });

    it('is claimed by one output store: the same store again passes, another is refused, bodies untouched', async () => {
      const address = await put(bodyOf('claimed', 300));
      // Bodies already there: the first store proves them its own.
      const owner = {
        storeId: 'store-one',
        description: 'the first store',
        ownBodies: async () => [address],
      };
      await blobs.claim(owner);
      await blobs.claim(owner);
      // A second handle on the same location (another process, another machine).
      const other = await factory(context);
      try {
        await other.claim(owner);
        const refused = await other
          .claim({ storeId: 'store-two', description: 'the second store' })
          .catch((caught: unknown) => caught);
        expect(BlobStoreClaimedError.isInstance(refused)).toBe(true);
        expect(refused).toMatchObject({
          code: 'INVALID_OPTION',
          location: blobs.location,
          ownerStoreId: 'store-one',
          ownerStore: 'the first store',
        });
        expect((refused as Error).message).toContain('the first store');
      } finally {
        await other.close();
      }
      // The marker is no body.
      expect(await listed(blobs)).toEqual([address]);
    });

    it('refuses a location holding bodies without a marker to a store that cannot prove them its own', async () => {
      // Bodies with no marker: it was deleted, or the bodies predate markers.
      const address = await put(bodyOf('unmarked', 400));
      const stranger = { storeId: 'stranger', description: 'another store' };
      const claims = [
        stranger,
        { ...stranger, ownBodies: async () => [] },
        { ...stranger, ownBodies: async () => [address, sha256(bodyOf('never stored', 10))] },
      ];
      for (const claimant of claims) {
        const refused = await blobs.claim(claimant).catch((caught: unknown) => caught);
        expect(BlobStoreUnmarkedError.isInstance(refused)).toBe(true);
        expect(refused).toMatchObject({ code: 'INVALID_OPTION', location: blobs.location });
        expect((refused as Error).message).toContain(blobs.location);
      }
      expect(await listed(blobs)).toEqual([address]);
      // The store whose bodies they are writes its marker again; then the stranger meets it.
      await blobs.claim({ storeId: 'owner', description: 'the owner', ownBodies: async () => [address] });
      const claimed = await blobs.claim(stranger).catch((caught: unknown) => caught);
      expect(claimed).toMatchObject({ ownerStoreId: 'owner' });
      expect(BlobStoreClaimedError.isInstance(claimed)).toBe(true);
      expect(await listed(blobs)).toEqual([address]);
    });

    it('lets exactly one of two stores claiming a fresh location at once win', async () => {
      const handles = await Promise.all(Array.from({ length: 4 }, () => factory(context)));
      try {
        const outcomes = await Promise.allSettled(
          handles.map((handle, index) =>
            handle.claim({ storeId: `racer-${index}`, description: `racer ${index}` }),
          ),
        );
        expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
        for (const outcome of outcomes) {
          if (outcome.status === 'rejected')
            expect(BlobStoreClaimedError.isInstance(outcome.reason)).toBe(true);
        }
      } finally {
        await Promise.all(handles.map((handle) => handle.close()));
      }
    });

    it('fails every call once closed', async () => {
      const address = await put(bodyOf('closed', 10));
      await blobs.close();
      expect(await codeOf(blobs.has(address))).toBe('STORAGE_FAILURE');
      expect(await codeOf(blobs.open(address))).toBe('STORAGE_FAILURE');
      expect(await codeOf(blobs.claim({ storeId: 's', description: 's' }))).toBe('STORAGE_FAILURE');
      await blobs.close();
    });
  });
}
