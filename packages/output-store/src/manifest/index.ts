export {
  defaultMaxItemBytes,
  type IndexItemsOptions,
  type IndexItemsResult,
  type ItemFormat,
  type ItemIndex,
  indexItems,
  type ReadItemOptions,
  readItem,
} from './item-index.js';
export {
  defaultListReadLimits,
  type ListReadLimits,
  type ListReadOptions,
  type ListReadScope,
  scopeRefusal,
} from './list-walk.js';
export {
  entryOutIds,
  itemIndexContentType,
  MANIFEST_FORMAT,
  type Manifest,
  type ManifestChunkRef,
  manifestChunkContentType,
  manifestContentType,
} from './manifest-format.js';
export {
  isManifestRecord,
  manifestChunks,
  manifestEntries,
  manifestRefs,
  parseChunk,
  parseManifest,
  readManifest,
} from './read-manifest.js';
export {
  type ManifestChunkInput,
  type ManifestInput,
  writeManifest,
  writeManifestChunk,
} from './write-manifest.js';
