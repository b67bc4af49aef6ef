import type { BlobStore } from '../blobs/blob-store.js';
import type { BlobStoreOwner } from '../blobs/store-marker.js';

/**
 * The SQLite store's view of a {@link BlobStore} it was given: uploads before commits and
 * removals after them, kept from crossing within this process. A removal is skipped while an
 * emit of the same address is between its upload and its commit, and an upload waits for a
 * removal of its address in flight, so an emit never commits a row whose body a concurrent
 * delete is removing. Across processes a window remains between a removal's check and its
 * request; bodies removed by mistake there are reported as storage failures, never served wrong.
 *
 * The blob store is claimed for the SQLite store at construction (see `BlobStore.claim`):
 * uploads wait for the claim and fail with its error, and nothing is removed from a blob
 * store that is not proven the SQLite store's.
 *
 * @example
 * ```ts
 * const external = new ExternalBlobs(blobs, (sha256) => rowUses(sha256), owner);
 * await external.upload({ sha256, tempPath, sizeBytes });
 * ```
 */
export class ExternalBlobs {
  readonly store: BlobStore;
  readonly owner: BlobStoreOwner;
  /** Settles once the blob store is claimed for the SQLite store; rejects when it cannot be. */
  readonly claimed: Promise<void>;
  readonly #referenced: (sha256: string) => boolean;
  /** Emits per address between the start of their upload and the end of their commit. */
  readonly #inUse = new Map<string, number>();
  readonly #removing = new Map<string, Promise<void>>();

  constructor(store: BlobStore, referenced: (sha256: string) => boolean, owner: BlobStoreOwner) {
    this.store = store;
    this.owner = owner;
    this.#referenced = referenced;
    this.claimed = store.claim(owner);
    this.claimed.catch(() => undefined);
  }

  /** Uploads a spooled body (consuming its temp file); pair with {@link ExternalBlobs.settled}. */
  async upload(spooled: { sha256: string; tempPath: string; sizeBytes: number }): Promise<void> {
    this.#inUse.set(spooled.sha256, (this.#inUse.get(spooled.sha256) ?? 0) + 1);
    await this.claimed;
    await this.#removing.get(spooled.sha256);
    await this.store.putFile(spooled.sha256, spooled.tempPath, spooled.sizeBytes);
  }

  /** Whether an emit of this address is between its upload and its commit in this process. */
  inUse(sha256: string): boolean {
    return this.#inUse.has(sha256);
  }

  /** The emit of `sha256` has committed or failed. */
  settled(sha256: string): void {
    const count = this.#inUse.get(sha256) ?? 0;
    if (count <= 1) this.#inUse.delete(sha256);
    else this.#inUse.set(sha256, count - 1);
  }

  /** Removes an address no row referenced at commit, unless an emit or a row claims it by then. */
  scheduleRemoval(sha256: string): void {
    if (this.#removing.has(sha256)) return;
    const removal = Promise.resolve()
      .then(async () => {
        await this.claimed;
        if (this.#inUse.has(sha256) || this.#referenced(sha256)) return;
        await this.store.remove(sha256);
      })
      .catch(() => undefined)
      .finally(() => this.#removing.delete(sha256));
    this.#removing.set(sha256, removal);
  }

  /** Resolves when every scheduled removal has finished (failed ones are left for a sweep). */
  async removals(): Promise<void> {
    await Promise.all(this.#removing.values());
  }

  /** A whole body in memory. */
  async read(sha256: string): Promise<Uint8Array> {
    const chunks: Buffer[] = [];
    for await (const chunk of await this.store.open(sha256)) chunks.push(Buffer.from(chunk as Uint8Array));
    return new Uint8Array(Buffer.concat(chunks));
  }
}
