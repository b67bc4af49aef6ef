import { entryOutIds, type Manifest } from '../manifest/manifest-format.js';
import { parseChunk, parseManifest } from '../manifest/read-manifest.js';
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
 * (`OutputClient.manifestRefs`; nested manifests in their place).
 *
 * @example
 * ```ts
 * for (const ref of await clientManifestRefs(client, { outId })) console.log(ref.outId);
 * ```
 */
export async function clientManifestRefs(client: BodyReader, ref: OutputRef): Promise<OutputRef[]> {
  const manifest = await clientManifest(client, ref);
  const refs: OutputRef[] = [];
  for (const chunk of manifest.chunks) {
    if (chunk.manifest === true) {
      refs.push(...(await clientManifestRefs(client, { outId: chunk.outId })));
      continue;
    }
    const entries = parseChunk(chunk.outId, await client.readInputText({ outId: chunk.outId }));
    for (const entry of entries) for (const outId of entryOutIds(entry)) refs.push({ outId });
  }
  return refs;
}
