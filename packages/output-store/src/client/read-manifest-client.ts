import { type ListReadLimits, walkList } from '../manifest/list-walk.js';
import { entryOutIds, type Manifest } from '../manifest/manifest-format.js';
import { countedChunk, parseManifest } from '../manifest/read-manifest.js';
import type { OutputRef } from '../types.js';

/** What the manifest readers need of an `OutputClient`. */
interface BodyReader {
  readInputText(ref: OutputRef): Promise<string>;
}

/**
 * A stored list's manifest, read through the intake (`OutputClient.readManifest`).
 *
 * @example
 * ```ts
 * const { count } = await clientManifest(client, { outId });
 * ```
 */
export async function clientManifest(client: BodyReader, ref: OutputRef): Promise<Manifest> {
  return parseManifest(ref.outId, await client.readInputText(ref));
}

/**
 * The out ids a stored list names, read chunk by chunk through the intake
 * (`OutputClient.manifestRefs`; nested manifests in their place). The intake lets the spawn
 * read only its scope's outputs; the walk reads each part once at most, checks every count
 * against what the manifest recorded and keeps the bounds of `limits` (see `ListReadLimits`).
 *
 * @example
 * ```ts
 * for (const ref of await clientManifestRefs(client, { outId })) console.log(ref.outId);
 * ```
 */
export async function clientManifestRefs(
  client: BodyReader,
  ref: OutputRef,
  limits?: ListReadLimits,
): Promise<OutputRef[]> {
  const readPart = async (outId: string) => Buffer.from(await client.readInputText({ outId }), 'utf8');
  const refs: OutputRef[] = [];
  const walk = walkList(ref.outId, readPart, parseManifest, limits === undefined ? {} : { limits });
  for await (const { chunk, bytes } of walk) {
    for (const entry of countedChunk(ref.outId, chunk, bytes))
      for (const outId of entryOutIds(entry)) refs.push({ outId });
  }
  return refs;
}
