import type { OutputRef, OutputStore, Producer } from '../types.js';
import { asWharfWrite, manifestPartLabel } from '../wharf-writes.js';
import {
  MANIFEST_FORMAT,
  type Manifest,
  type ManifestChunkRef,
  manifestChunkContentType,
  manifestContentType,
} from './manifest-format.js';

/** What {@link writeManifestChunk} stores. */
export interface ManifestChunkInput {
  readonly producer: Producer;
  /** The same key and entries return the same chunk (a retried write stores nothing twice). */
  readonly idempotencyKey: string;
  /** JSON values, in order: out ids, or records naming them (`{ outIds: [...] }`). */
  readonly entries: readonly unknown[];
  readonly name?: string;
  readonly labels?: Readonly<Record<string, string>>;
}

/**
 * Stores one chunk of a stored list: its entries as NDJSON (one JSON value per line), marked as
 * Wharf's own write (see `asWharfWrite`). Returns the chunk's ref and entry count, what a
 * {@link Manifest} lists.
 *
 * @example
 * ```ts
 * const chunk = await writeManifestChunk(store, { producer, idempotencyKey: 'fan/0', entries: ['out_a', 'out_b'] });
 * const ref = await writeManifest(store, { producer, idempotencyKey: 'fan', chunks: [chunk] });
 * ```
 */
export async function writeManifestChunk(
  store: OutputStore,
  input: ManifestChunkInput,
): Promise<ManifestChunkRef> {
  const text = input.entries.map((entry) => `${JSON.stringify(entry ?? null)}\n`).join('');
  const ref = await store.emit(
    asWharfWrite({
      producer: input.producer,
      content: { kind: 'text', text },
      idempotencyKey: input.idempotencyKey,
      contentType: manifestChunkContentType,
      ...(input.name === undefined ? {} : { name: input.name }),
      labels: { ...input.labels, [manifestPartLabel]: 'chunk' },
    }),
  );
  return { outId: ref.outId, count: input.entries.length };
}

/** What {@link writeManifest} stores. */
export interface ManifestInput {
  readonly producer: Producer;
  readonly idempotencyKey: string;
  /** The list's chunks, in order. */
  readonly chunks: readonly ManifestChunkRef[];
  readonly name?: string;
  readonly labels?: Readonly<Record<string, string>>;
}

/**
 * Stores the manifest of a stored list: the JSON index of its chunks and its entry count, marked
 * as Wharf's own write. Its ref is the one handle the list travels by.
 *
 * @example
 * ```ts
 * const ref = await writeManifest(store, { producer, idempotencyKey: 'fan', chunks });
 * (await readManifest(store, ref, { scope: { ownerId: producer.ownerId } })).count;
 * ```
 */
export async function writeManifest(store: OutputStore, input: ManifestInput): Promise<OutputRef> {
  const manifest: Manifest = {
    format: MANIFEST_FORMAT,
    count: input.chunks.reduce((sum, chunk) => sum + chunk.count, 0),
    chunks: input.chunks.map((chunk) => ({
      outId: chunk.outId,
      count: chunk.count,
      ...(chunk.manifest === true ? { manifest: true as const } : {}),
    })),
  };
  return store.emit(
    asWharfWrite({
      producer: input.producer,
      content: { kind: 'text', text: JSON.stringify(manifest) },
      idempotencyKey: input.idempotencyKey,
      contentType: manifestContentType,
      ...(input.name === undefined ? {} : { name: input.name }),
      labels: { ...input.labels, [manifestPartLabel]: 'manifest' },
    }),
  );
}
