import { access, link, open, readdir, readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { resolveRange } from '../byte-range.js';
import { BlobNotFoundError, InvalidOutputEventError, StorageFailureError } from '../errors.js';
import { OutputStoreError } from '../output-store-error.js';
import { BlobDirectory } from './blob-directory.js';
import type { BlobRange, BlobStore, StoredBlob } from './blob-store.js';
import { assertOwnMarker, type BlobStoreOwner, storeMarkerName, storeMarkerText } from './store-marker.js';
import { assertUnmarkedClaimable } from './unmarked-claim.js';

const shaPattern = /^[0-9a-f]{64}$/;

/**
 * Throws {@link InvalidOutputEventError} unless `sha256` is a blob address (64 lower-case
 * hex digits), so no caller-supplied text ever becomes part of a path or an object key.
 *
 * @example
 * ```ts
 * assertBlobAddress('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
 * ```
 */
export function assertBlobAddress(sha256: string): void {
  if (typeof sha256 !== 'string' || !shaPattern.test(sha256))
    throw new InvalidOutputEventError('sha256', 'must be 64 lower-case hex digits');
}

/**
 * Options of {@link LocalBlobStore}.
 *
 * @example
 * ```ts
 * const options: LocalBlobStoreOptions = { root: '/var/lib/wharf/blobs' };
 * ```
 */
export interface LocalBlobStoreOptions {
  /** The directory; created when missing. Bodies live at `<root>/ab/abcdef…`, temp files in `<root>/tmp/`. */
  readonly root: string;
}

/**
 * A {@link BlobStore} in a local directory, the layout the SQLite store uses beside its
 * database. A body is fsynced and renamed into its content address (copied through a
 * fsynced temp file when it comes from another file system), then its folder is fsynced, so
 * a crash never leaves a partial body under an address. Temp files carry their writer's pid;
 * opening the store removes those of writers that are gone.
 *
 * @example
 * ```ts
 * const blobs = new LocalBlobStore({ root: '.wharf/blobs' });
 * await blobs.putFile(sha256, '/tmp/spool.part', 5_000_000);
 * const stream = await blobs.open(sha256, { start: 0, end: 1024 });
 * await blobs.close();
 * ```
 */
export class LocalBlobStore implements BlobStore {
  readonly location: string;
  /** The store's directory, absolute. */
  readonly root: string;
  readonly #directory: BlobDirectory;
  readonly #claimed = new Set<string>();
  #closed = false;

  constructor(options: LocalBlobStoreOptions) {
    this.root = resolve(options.root);
    this.location = pathToFileURL(this.root).href;
    try {
      this.#directory = new BlobDirectory(this.root);
      this.#directory.removeDeadTemps();
    } catch (error) {
      throw new StorageFailureError(`cannot open blob directory ${this.root}: ${String(error)}`, {
        cause: error,
      });
    }
  }

  /**
   * Folder for files on their way in (`<root>/tmp`): a body spooled here is renamed, not
   * copied, by {@link LocalBlobStore.putFile}.
   */
  get tempDir(): string {
    return this.#directory.tempDir;
  }

  /**
   * A fresh temp path in {@link LocalBlobStore.tempDir}, protected from dead-temp cleanup
   * until released. Output stores spool large bodies here.
   */
  claimTemp(): string {
    this.#assertOpen();
    const path = this.#directory.claimTemp();
    this.#claimed.add(path);
    return path;
  }

  /** Deletes a temp path from {@link LocalBlobStore.claimTemp} if it is still there. */
  releaseTemp(path: string): void {
    this.#claimed.delete(path);
    this.#directory.releaseTemp(path);
  }

  async putFile(sha256: string, path: string, sizeBytes: number): Promise<void> {
    try {
      this.#assertOpen();
      assertBlobAddress(sha256);
      const actual = (await stat(path)).size;
      if (actual !== sizeBytes)
        throw new InvalidOutputEventError('sizeBytes', `is ${sizeBytes} but ${path} holds ${actual} bytes`);
    } catch (error) {
      this.#consume(path);
      throw this.#failure(error, `cannot store blob from ${path}`);
    }
    try {
      await this.#directory.adopt(path, sha256);
    } catch (error) {
      throw this.#failure(error, `cannot store blob ${sha256}`);
    }
  }

  async open(sha256: string, range?: BlobRange): Promise<Readable> {
    this.#assertOpen();
    assertBlobAddress(sha256);
    let handle: Awaited<ReturnType<typeof open>>;
    try {
      handle = await open(this.#directory.pathOf(sha256), 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT')
        throw new BlobNotFoundError(sha256, this.location);
      throw this.#failure(error, `cannot open blob ${sha256}`);
    }
    let sizeBytes: number;
    try {
      sizeBytes = (await handle.stat()).size;
    } catch (error) {
      await handle.close();
      throw this.#failure(error, `cannot stat blob ${sha256}`);
    }
    let start: number;
    let end: number;
    try {
      ({ start, end } = resolveRange(range, sizeBytes));
    } catch (error) {
      await handle.close();
      throw error;
    }
    if (start === end) {
      await handle.close();
      return Readable.from([]);
    }
    return handle.createReadStream({ start, end: end - 1, highWaterMark: 1 << 20 });
  }

  async has(sha256: string): Promise<boolean> {
    this.#assertOpen();
    assertBlobAddress(sha256);
    try {
      return (await stat(this.#directory.pathOf(sha256))).isFile();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw this.#failure(error, `cannot stat blob ${sha256}`);
    }
  }

  async remove(sha256: string): Promise<void> {
    this.#assertOpen();
    assertBlobAddress(sha256);
    try {
      this.#directory.remove(sha256);
    } catch (error) {
      throw this.#failure(error, `cannot remove blob ${sha256}`);
    }
  }

  async *list(): AsyncIterable<StoredBlob> {
    this.#assertOpen();
    for (const prefix of await readdir(this.root)) {
      if (!/^[0-9a-f]{2}$/.test(prefix)) continue;
      let names: string[];
      try {
        names = await readdir(join(this.root, prefix));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw error;
      }
      for (const name of names) {
        if (!shaPattern.test(name) || !name.startsWith(prefix)) continue;
        try {
          const stats = await stat(join(this.root, prefix, name));
          yield { sha256: name, sizeBytes: stats.size, modifiedMs: Math.floor(stats.mtimeMs) };
        } catch (error) {
          // Removed since the folder was read.
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        }
      }
    }
  }

  /**
   * Claims the directory with `<root>/wharf-store.json`: written to a temp file and linked
   * into place, which fails when a marker is there already, so of two stores claiming a fresh
   * directory at once exactly one wins and the other reads its marker and is refused. A
   * directory without a marker that holds bodies is claimed only by the store that proves them
   * its own (`owner.ownBodies`), else refused with `BlobStoreUnmarkedError`.
   */
  async claim(owner: BlobStoreOwner): Promise<void> {
    this.#assertOpen();
    const path = join(this.root, storeMarkerName);
    for (;;) {
      let text: string;
      try {
        text = await readFile(path, 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
          throw this.#failure(error, `cannot read ${path}`);
        await assertUnmarkedClaimable(this, owner, this.location, () =>
          access(path).then(
            () => true,
            () => false,
          ),
        );
        if (await this.#createMarker(path, owner)) return;
        continue;
      }
      assertOwnMarker(text, owner, this.location);
      return;
    }
  }

  /** Links a fresh marker into place; false when another claim got there first. */
  async #createMarker(path: string, owner: BlobStoreOwner): Promise<boolean> {
    const temp = this.#directory.claimTemp();
    try {
      const handle = await open(temp, 'wx', 0o644);
      try {
        await handle.writeFile(storeMarkerText(owner));
        await handle.sync();
      } finally {
        await handle.close();
      }
      await link(temp, path);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw this.#failure(error, `cannot write ${path}`);
    } finally {
      this.#directory.releaseTemp(temp);
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const path of this.#claimed) this.#directory.releaseTemp(path);
    this.#claimed.clear();
  }

  #consume(path: string): void {
    try {
      this.#directory.releaseTemp(path);
    } catch {
      // Nothing more to do: the file was not ours to keep.
    }
  }

  #failure(error: unknown, message: string): Error {
    if (OutputStoreError.isInstance(error)) return error;
    return new StorageFailureError(`${message}: ${String(error)}`, { cause: error });
  }

  #assertOpen(): void {
    if (this.#closed) throw new StorageFailureError(`the blob store ${this.location} is closed`);
  }
}
