import { z } from 'zod';

/** Content type of a manifest: the JSON index of a stored list's chunks. */
export const manifestContentType = 'application/vnd.wharf.manifest+json';
/** Content type of one chunk of a stored list: one JSON value per line (NDJSON). */
export const manifestChunkContentType = 'application/x-ndjson';
/** Content type of an item index (see `indexItems`): 32-byte records, one per item. */
export const itemIndexContentType = 'application/vnd.wharf.item-index';

/** The `format` of the manifests this version writes and reads. */
export const MANIFEST_FORMAT = 'wharf-manifest/1';

/**
 * One chunk of a stored list: its output id and how many entries (lines) it holds; with
 * `manifest: true`, a manifest of its own whose entries come here in order (a long list's
 * writer folds its first chunks into one, so the list it carries stays short).
 *
 * @example
 * ```ts
 * const chunk: ManifestChunkRef = { outId: 'out_0MxPZ7Vu3fZ8kQ1x', count: 4000 };
 * ```
 */
export interface ManifestChunkRef {
  readonly outId: string;
  readonly count: number;
  readonly manifest?: true;
}

/**
 * A stored list too long to travel as a value: its entries live in chunks (NDJSON outputs of a
 * few thousand entries each), in order; the manifest names them and counts the entries.
 *
 * @example
 * ```ts
 * const manifest: Manifest = { format: 'wharf-manifest/1', count: 2, chunks: [{ outId: 'out_…', count: 2 }] };
 * ```
 */
export interface Manifest {
  readonly format: typeof MANIFEST_FORMAT;
  /** Entries in all chunks. */
  readonly count: number;
  readonly chunks: readonly ManifestChunkRef[];
}

/** A manifest as stored (checked when read: a manifest is outside data to its reader). */
export const manifestSchema = z
  .object({
    format: z.literal(MANIFEST_FORMAT),
    count: z.number().int().nonnegative(),
    chunks: z.array(
      z.object({
        outId: z.string().min(1),
        count: z.number().int().nonnegative(),
        manifest: z.literal(true).optional(),
      }),
    ),
  })
  .refine((manifest) => manifest.chunks.reduce((sum, chunk) => sum + chunk.count, 0) === manifest.count, {
    message: 'count is not the sum of the chunks’ counts',
    path: ['count'],
  });

/**
 * The out ids one manifest entry names: the entry itself when it is an out id (a list of refs),
 * its `outIds` when it is a record of a task instance (`{ instance, status, outIds, … }`).
 *
 * @example
 * ```ts
 * entryOutIds('out_a'); // ['out_a']
 * entryOutIds({ instance: 3, status: 'ok', outIds: ['out_b', 'out_c'] }); // ['out_b', 'out_c']
 * ```
 */
export function entryOutIds(entry: unknown): string[] {
  if (typeof entry === 'string') return [entry];
  if (typeof entry === 'object' && entry !== null && Array.isArray((entry as { outIds?: unknown }).outIds))
    return (entry as { outIds: unknown[] }).outIds.filter(
      (outId): outId is string => typeof outId === 'string',
    );
  return [];
}
