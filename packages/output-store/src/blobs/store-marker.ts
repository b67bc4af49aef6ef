import { z } from 'zod';
import { BlobStoreClaimedError } from '../errors.js';

/**
 * The output store a blob store belongs to: a stable id kept in the store's database, and
 * where that store lives (without passwords), for the message that refuses a second store.
 *
 * @example
 * ```ts
 * const owner: BlobStoreOwner = { storeId: '8d1f…', description: 'PostgreSQL db:5432/wharf schema "wharf"' };
 * ```
 */
export interface BlobStoreOwner {
  readonly storeId: string;
  readonly description: string;
  /**
   * Answers the addresses of a few of the store's newest bodies kept in the blob store (what its
   * records reference); asked only when a location without a marker holds bodies. Such a
   * location is claimed only when every one of these is there (and there is one at least): the
   * proof that the bodies are this store's, which lets it write its marker again after someone
   * deleted it. Without it, such a location is refused.
   */
  readonly ownBodies?: () => Promise<readonly string[]>;
}

/** Name of the marker a claimed blob store keeps beside its bodies (not a body address). */
export const storeMarkerName = 'wharf-store.json';

const markerSchema = z.object({ storeId: z.string().min(1), store: z.string() });

/**
 * The marker's text for `owner`.
 *
 * @example
 * ```ts
 * await writeFile(join(root, storeMarkerName), storeMarkerText(owner));
 * ```
 */
export function storeMarkerText(owner: BlobStoreOwner): string {
  return `${JSON.stringify({ storeId: owner.storeId, store: owner.description, claimedAt: new Date().toISOString() })}\n`;
}

/**
 * Accepts a marker that names `owner`; throws {@link BlobStoreClaimedError} for one that names
 * another store, or that is not a Wharf marker at all (then someone else's data lives there).
 *
 * @example
 * ```ts
 * assertOwnMarker(await readFile(markerPath, 'utf8'), owner, blobs.location);
 * ```
 */
export function assertOwnMarker(text: string, owner: BlobStoreOwner, location: string): void {
  let parsed: z.infer<typeof markerSchema> | undefined;
  try {
    parsed = markerSchema.parse(JSON.parse(text));
  } catch {
    throw new BlobStoreClaimedError(location, {
      storeId: 'unknown',
      store: `an unreadable ${storeMarkerName}`,
    });
  }
  if (parsed.storeId !== owner.storeId)
    throw new BlobStoreClaimedError(location, { storeId: parsed.storeId, store: parsed.store });
}
