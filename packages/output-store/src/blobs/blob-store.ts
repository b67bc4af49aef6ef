import type { Readable } from 'node:stream';
import type { BlobStoreOwner } from './store-marker.js';

/**
 * A resolved byte range of a stored body: `start` inclusive, `end` exclusive, both within
 * the body. Callers resolve open ranges with the record's size before asking a blob store.
 *
 * @example
 * ```ts
 * const firstKiB: BlobRange = { start: 0, end: 1024 };
 * ```
 */
export interface BlobRange {
  readonly start: number;
  readonly end: number;
}

/**
 * One body a blob store holds: its address, size, and when it was last written (whole epoch
 * milliseconds, the resolution of the `Date.now()` a sweep compares it with; an unreferenced
 * body younger than a sweep's grace period may belong to an EMIT still on its way, and is left
 * alone).
 *
 * @example
 * ```ts
 * for await (const blob of blobs.list()) console.log(blob.sha256, blob.sizeBytes, new Date(blob.modifiedMs));
 * ```
 */
export interface StoredBlob {
  readonly sha256: string;
  readonly sizeBytes: number;
  readonly modifiedMs: number;
}

/**
 * Where an output store keeps large bodies, addressed by their SHA-256 (lowercase hex).
 * Small bodies stay inline in the database; a body goes to a blob store only after it has
 * been spooled to a local temp file and hashed, so the address is known before the upload
 * and a half-written upload is never visible under it.
 *
 * Implementations: {@link LocalBlobStore} (a directory, the default) and `S3BlobStore`
 * (any S3-compatible server, subpath `@wharf/output-store/s3`).
 *
 * Content addressing makes every write idempotent: storing bytes whose address is already
 * present is a no-op, and two writers racing on one address both succeed.
 *
 * @example
 * ```ts
 * await blobs.putFile(sha256, '/tmp/spool-123.part', 52_428_800);
 * const stream = await blobs.open(sha256, { start: 0, end: 1024 });
 * ```
 */
export interface BlobStore {
  /** Where the blobs live, for messages and `wharf status` (`file:///…`, `s3://bucket/prefix`). */
  readonly location: string;
  /**
   * Stores the finished local file at `path`, whose bytes hash to `sha256` and number
   * `sizeBytes`, under that address; durable when the promise resolves. The file is consumed
   * (moved or deleted) either way.
   */
  putFile(sha256: string, path: string, sizeBytes: number): Promise<void>;
  /** A stream of the whole body or of `range`; rejects with `BlobNotFoundError` when absent. */
  open(sha256: string, range?: BlobRange): Promise<Readable>;
  /** Whether the address holds a body. */
  has(sha256: string): Promise<boolean>;
  /** Deletes a body; a missing one is fine. */
  remove(sha256: string): Promise<void>;
  /** Every stored body (for garbage collection of unreferenced bodies). */
  list(): AsyncIterable<StoredBlob>;
  /**
   * Claims the blob store for one output store, or proves it is already that store's: a
   * marker (`wharf-store.json`) beside the bodies names the store's id; the first claim
   * creates it, atomically and only if absent. A marker naming another store is refused with
   * `BlobStoreClaimedError`, so two output stores never share one blob store (each would take
   * the other's bodies for unreferenced ones). Output stores claim on open and again before
   * they remove unreferenced bodies. Reads (and on the first claim writes) the blob store, so a
   * missing bucket or a wrong key fails here, naming the location.
   */
  claim(owner: BlobStoreOwner): Promise<void>;
  /** Releases connections and clears the store's own temp files; further calls fail. */
  close(): Promise<void>;
}
