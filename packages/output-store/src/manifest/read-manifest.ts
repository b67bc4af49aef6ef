import { ListLimitError, StorageFailureError, UntrustedListError } from '../errors.js';
import type { OutputRecord, OutputRef, OutputStore } from '../types.js';
import { manifestPartLabel } from '../wharf-writes.js';
import {
  defaultListReadLimits,
  type ListPartKind,
  type ListReadOptions,
  partRefusal,
  walkList,
} from './list-walk.js';
import {
  entryOutIds,
  type Manifest,
  type ManifestChunkRef,
  manifestChunkContentType,
  manifestContentType,
  manifestSchema,
} from './manifest-format.js';

/**
 * True when the record is a manifest written by Wharf (what {@link readManifest} reads): its
 * content type and the part label that only Wharf's own writer can set.
 *
 * @example
 * ```ts
 * if (isManifestRecord(await store.stat(ref))) console.log(await manifestRefs(store, ref, { scope: { ownerId } }));
 * ```
 */
export function isManifestRecord(record: Pick<OutputRecord, 'contentType' | 'labels'>): boolean {
  return record.contentType === manifestContentType && record.labels[manifestPartLabel] === 'manifest';
}

const expectedParts: Record<ListPartKind, { label: string; value: string; contentType: string }> = {
  manifest: { label: manifestPartLabel, value: 'manifest', contentType: manifestContentType },
  chunk: { label: manifestPartLabel, value: 'chunk', contentType: manifestChunkContentType },
};

/**
 * Reads one part of a stored list from the store, refusing (before reading its body) a part
 * Wharf did not write, one outside the scope, and one `admit` refuses for its size.
 */
async function readListPart(
  store: OutputStore,
  list: string,
  outId: string,
  kind: ListPartKind,
  admit: (sizeBytes: number) => void,
  options: ListReadOptions,
): Promise<Buffer> {
  const body = await store.openBody({ outId });
  try {
    const refusal = partRefusal(body.record, expectedParts[kind], options.scope);
    if (refusal !== undefined) throw new UntrustedListError(list, outId, refusal);
    admit(body.record.sizeBytes);
    const chunks: Uint8Array[] = [];
    for await (const chunk of body.stream) chunks.push(chunk as Uint8Array);
    return Buffer.concat(chunks);
  } finally {
    body.stream.destroy();
  }
}

/**
 * Reads and checks a manifest written by Wharf, of an owner and run in `options.scope`. A part
 * Wharf did not write or outside the scope is an `UntrustedListError`; a body that is no
 * manifest a `StorageFailureError` naming the output and what is wrong with it.
 *
 * @example
 * ```ts
 * const { count, chunks } = await readManifest(store, ref, { scope: { ownerId: 'team-a' } });
 * ```
 */
export async function readManifest(
  store: OutputStore,
  ref: OutputRef,
  options: ListReadOptions,
): Promise<Manifest> {
  const limits = { ...defaultListReadLimits, ...options.limits };
  const admit = (sizeBytes: number): void => {
    if (sizeBytes > limits.maxPartBytes)
      throw new ListLimitError(ref.outId, 'partBytes', limits.maxPartBytes, `it has ${sizeBytes} bytes`);
  };
  const bytes = await readListPart(store, ref.outId, ref.outId, 'manifest', admit, options);
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
 * A chunk's entries, checked against the count its manifest recorded (else
 * `UntrustedListError` naming the list and the chunk).
 *
 * @example
 * ```ts
 * countedChunk('out_m', { outId: 'out_c', count: 2 }, Buffer.from('"out_a"\n"out_b"\n')); // ['out_a', 'out_b']
 * ```
 */
export function countedChunk(list: string, chunk: ManifestChunkRef, bytes: Buffer): unknown[] {
  const entries = parseChunk(chunk.outId, bytes.toString('utf8'));
  if (entries.length !== chunk.count)
    throw new UntrustedListError(
      list,
      chunk.outId,
      `it holds ${entries.length} entries, the manifest says ${chunk.count}`,
    );
  return entries;
}

/**
 * Every entry of a stored list, chunk by chunk, in order (a chunk that is a manifest itself
 * gives its entries in its place): one chunk in memory at a time. Only parts Wharf wrote, of
 * the scope's owner and runs, are followed, within the bounds of `options.limits` (see
 * {@link manifestChunks}).
 *
 * @example
 * ```ts
 * for await (const entry of manifestEntries(store, ref, { scope: { ownerId, runIds: [runId] } })) console.log(entry);
 * ```
 */
export async function* manifestEntries(
  store: OutputStore,
  ref: OutputRef,
  options: ListReadOptions,
): AsyncGenerator<unknown> {
  for await (const { entries } of manifestChunks(store, ref, options)) yield* entries;
}

/**
 * The chunks of a stored list in order, each with its entries and its body's bytes (nested
 * manifests walked in their place). Every part must carry Wharf's writer's mark and belong to
 * the scope's owner and runs (else `UntrustedListError`, before its body is read); each is read
 * once at most, and each chunk's entries and nested manifest's count must match what its
 * parent recorded; `ListLimitError` past the depth, part or byte bounds; `options.signal`
 * stops the walk between parts.
 *
 * @example
 * ```ts
 * for await (const { chunk, entries } of manifestChunks(store, ref, { scope: { ownerId } })) console.log(chunk.outId, entries.length);
 * ```
 */
export async function* manifestChunks(
  store: OutputStore,
  ref: OutputRef,
  options: ListReadOptions,
): AsyncGenerator<{ chunk: ManifestChunkRef; bytes: Buffer; entries: unknown[] }> {
  const readPart = (outId: string, kind: ListPartKind, admit: (sizeBytes: number) => void) =>
    readListPart(store, ref.outId, outId, kind, admit, options);
  for await (const { chunk, bytes } of walkList(ref.outId, readPart, parseManifest, options)) {
    yield { chunk, bytes, entries: countedChunk(ref.outId, chunk, bytes) };
  }
}

/**
 * The out ids a stored list names, in order (each entry's, see `entryOutIds`): what a join's
 * `IN_REFS` expands to. Reads as {@link manifestChunks} does.
 *
 * @example
 * ```ts
 * const refs = await manifestRefs(store, { outId: manifestId }, { scope: { ownerId } }); // ['out_a', 'out_b', …]
 * ```
 */
export async function manifestRefs(
  store: OutputStore,
  ref: OutputRef,
  options: ListReadOptions,
): Promise<string[]> {
  const refs: string[] = [];
  for await (const entry of manifestEntries(store, ref, options))
    for (const outId of entryOutIds(entry)) refs.push(outId);
  return refs;
}
