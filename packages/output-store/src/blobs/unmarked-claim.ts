import { BlobStoreUnmarkedError } from '../errors.js';
import type { BlobStore } from './blob-store.js';
import type { BlobStoreOwner } from './store-marker.js';

/**
 * Checks that `owner` may write a marker into a blob store that has none: an empty one is
 * anyone's, one that holds bodies only the store whose bodies they are (every address of
 * `owner.ownBodies()` is there, and there is one at least). Otherwise throws
 * {@link BlobStoreUnmarkedError} naming `location`: the bodies may be another store's, whose
 * marker was deleted, and claiming them would let this store's gc remove them all. `markerNow`
 * says whether a marker is there by now: one written by a claim that raced this one is not a
 * refusal here (the caller's marker write then fails, and it reads that marker).
 *
 * @example
 * ```ts
 * await assertUnmarkedClaimable(blobs, owner, blobs.location);
 * await writeMarker(owner);
 * ```
 */
export async function assertUnmarkedClaimable(
  blobs: Pick<BlobStore, 'list' | 'has'>,
  owner: BlobStoreOwner,
  location: string,
  markerNow?: () => Promise<boolean>,
): Promise<void> {
  let holdsBodies = false;
  for await (const _blob of blobs.list()) {
    holdsBodies = true;
    break;
  }
  if (!holdsBodies) return;
  const own = (await owner.ownBodies?.()) ?? [];
  if (own.length > 0 && (await Promise.all(own.map((sha256) => blobs.has(sha256)))).every(Boolean)) return;
  // Another claim won since the caller found no marker (two workers of one data plane starting
  // at once), and its store already wrote bodies: the caller's own marker write fails and it
  // reads that marker, which decides.
  if ((await markerNow?.()) === true) return;
  throw new BlobStoreUnmarkedError(location);
}
