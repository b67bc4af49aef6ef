import { StorageFailureError } from '../errors.js';
import { readBody } from '../read-body.js';
import type { OutputRecord, OutputRef, OutputStore } from '../types.js';
import {
  entryOutIds,
  type Manifest,
  type ManifestChunkRef,
  manifestContentType,
  manifestSchema,
} from './manifest-format.js';

/**
 * True when the record is a manifest (what {@link readManifest} reads).
 *
 * @example
 * ```ts
 * if (isManifestRecord(await store.stat(ref))) console.log(await manifestRefs(store, ref));
 * ```
 */
export function isManifestRecord(record: Pick<OutputRecord, 'contentType'>): boolean {
  return record.contentType === manifestContentType;
}

/**
 * Reads and checks a manifest. A body that is no manifest is a `StorageFailureError` naming the
 * output and what is wrong with it.
 *
 * @example
 * ```ts
 * const { count, chunks } = await readManifest(store, ref);
 * ```
 */
export async function readManifest(store: OutputStore, ref: OutputRef): Promise<Manifest> {
  const { bytes } = await readBody(store, ref);
  return parseManifest(ref.outId, bytes.toString('utf8'));
}

/**
 * A manifest's text, checked: a typed error naming the output when it is not one.
 *
 * @example
 * ```ts
 * parseManifest('out_x', '{"format":"wharf-manifest/1","count":0,"chunks":[]}').count; // 0
 * ```
 */
export function parseManifest(outId: string, text: string): Manifest {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new StorageFailureError(`output ${outId} is not a manifest: its body is not JSON`);
  }
  const parsed = manifestSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new StorageFailureError(
      `output ${outId} is not a manifest: ${issue?.path.join('.') || 'body'} ${issue?.message ?? 'is invalid'}`,
    );
  }
  return parsed.data as Manifest;
}

/**
 * The entries of one chunk (NDJSON), in order; a line that is not JSON is a
 * `StorageFailureError` naming the chunk and the line.
 *
 * @example
 * ```ts
 * parseChunk('out_c', '"out_a"\n"out_b"\n'); // ['out_a', 'out_b']
 * ```
 */
export function parseChunk(outId: string, text: string): unknown[] {
  const entries: unknown[] = [];
  let line = 0;
  for (const part of text.split('\n')) {
    line += 1;
    if (part === '') continue;
    try {
      entries.push(JSON.parse(part));
    } catch {
      throw new StorageFailureError(`manifest chunk ${outId}: line ${line} is not JSON`);
    }
  }
  return entries;
}

/**
 * Every entry of a stored list, chunk by chunk, in order (a chunk that is a manifest itself
 * gives its entries in its place): one chunk in memory at a time.
 *
 * @example
 * ```ts
 * for await (const entry of manifestEntries(store, ref)) console.log(entry);
 * ```
 */
export async function* manifestEntries(store: OutputStore, ref: OutputRef): AsyncGenerator<unknown> {
  for await (const { chunk, entries } of manifestChunks(store, ref)) {
    if (entries.length !== chunk.count) {
      throw new StorageFailureError(
        `manifest ${ref.outId}: chunk ${chunk.outId} holds ${entries.length} entries, the manifest says ${chunk.count}`,
      );
    }
    yield* entries;
  }
}

/**
 * The chunks of a stored list in order, each with its entries and its body's text (nested
 * manifests walked in their place).
 *
 * @example
 * ```ts
 * for await (const { chunk, entries } of manifestChunks(store, ref)) console.log(chunk.outId, entries.length);
 * ```
 */
export async function* manifestChunks(
  store: OutputStore,
  ref: OutputRef,
): AsyncGenerator<{ chunk: ManifestChunkRef; bytes: Buffer; entries: unknown[] }> {
  const manifest = await readManifest(store, ref);
  for (const chunk of manifest.chunks) {
    if (chunk.manifest === true) {
      yield* manifestChunks(store, { outId: chunk.outId });
      continue;
    }
    const { bytes } = await readBody(store, { outId: chunk.outId });
    yield { chunk, bytes, entries: parseChunk(chunk.outId, bytes.toString('utf8')) };
  }
}

/**
 * The out ids a stored list names, in order (each entry's, see `entryOutIds`): what a join's
 * `IN_REFS` expands to.
 *
 * @example
 * ```ts
 * const refs = await manifestRefs(store, { outId: manifestId }); // ['out_a', 'out_b', …]
 * ```
 */
export async function manifestRefs(store: OutputStore, ref: OutputRef): Promise<string[]> {
  const refs: string[] = [];
  for await (const entry of manifestEntries(store, ref))
    for (const outId of entryOutIds(entry)) refs.push(outId);
  return refs;
}
