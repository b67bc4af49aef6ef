export { type AllowedFile, openAllowedFile } from './allowed-file.js';
export type { BlobRange, BlobStore, StoredBlob } from './blobs/blob-store.js';
export { assertBlobAddress, LocalBlobStore, type LocalBlobStoreOptions } from './blobs/local-blob-store.js';
export { type BlobStoreOwner, storeMarkerName } from './blobs/store-marker.js';
export { assertUnmarkedClaimable } from './blobs/unmarked-claim.js';
export { resolveRange } from './byte-range.js';
export {
  createEmitHandler,
  type EmitHandlerOptions,
  type EmitToolInput,
  type EmitToolResult,
  emitToolDefinition,
  emitToolInputSchema,
} from './emit-tool.js';
export { spawnEnv } from './env-names.js';
export {
  BlobNotFoundError,
  BlobStoreClaimedError,
  BlobStoreUnmarkedError,
  type ConnectionProblem,
  IdempotencyConflictError,
  IntakeBusyError,
  InvalidOutputEventError,
  InvalidStoreOptionError,
  ListItemTooLargeError,
  ListLimitError,
  type NotFoundReason,
  OutputForbiddenError,
  OutputNotFoundError,
  OutputPathError,
  OutputRangeError,
  OutputTooLargeError,
  OutputUnauthorizedError,
  type PathRejection,
  StorageFailureError,
  StoreConnectionError,
  TooManyUploadsError,
  UntrustedListError,
  UploadTimeoutError,
} from './errors.js';
export { isOutId, newOutId } from './ids.js';
export { InMemoryOutputStore, type InMemoryOutputStoreOptions } from './in-memory-output-store.js';
export { type HttpErrorBody, toHttpError } from './intake/http-error.js';
export { createIntakeHandler, type IntakeHandler } from './intake/intake-handler.js';
export type { IntakeOptions } from './intake/intake-options.js';
export { createIntakeServer, type IntakeServer, type IntakeServerOptions } from './intake/intake-server.js';
export { jsonEnvelopeType } from './intake/json-envelope-type.js';
export { parseRangeHeader, type RangeRequest } from './intake/range-header.js';
export { reservedLabelKeys } from './label-keys.js';
export {
  defaultListReadLimits,
  defaultMaxItemBytes,
  entryOutIds,
  type IndexItemsOptions,
  type IndexItemsResult,
  type ItemFormat,
  type ItemIndex,
  indexItems,
  isManifestRecord,
  itemIndexContentType,
  type ListReadLimits,
  type ListReadOptions,
  type ListReadScope,
  MANIFEST_FORMAT,
  type Manifest,
  type ManifestChunkInput,
  type ManifestChunkRef,
  type ManifestInput,
  manifestChunkContentType,
  manifestChunks,
  manifestContentType,
  manifestEntries,
  manifestRefs,
  parseChunk,
  parseManifest,
  type ReadItemOptions,
  readItem,
  readManifest,
  scopeRefusal,
  writeManifest,
  writeManifestChunk,
} from './manifest/index.js';
export { OutputStoreError, type OutputStoreErrorCode } from './output-store-error.js';
export { ensurePrivateDirectory, tightenPrivateFile } from './private-mode.js';
export { type ReadBody, readBody } from './read-body.js';
export { defaultOrphanGraceMs, planRetention, type RetentionCandidate } from './retention.js';
export { type SpawnTokenClaims, spawnTokenClaimsSchema } from './schemas.js';
export { issueSpawnToken, type TokenSecret, verifySpawnToken } from './spawn-token.js';
export { SqliteOutputStore, type SqliteOutputStoreOptions } from './sqlite/sqlite-output-store.js';
export { type CompactStreamResult, compactStream } from './stream/compact-stream.js';
export {
  listStreamParts,
  readStream,
  type StreamAttempt,
  type StreamAttemptState,
  type StreamChunk,
  type StreamSnapshot,
  type StreamTarget,
} from './stream/read-stream.js';
export {
  StreamClosedError,
  StreamCompactedError,
  StreamFlushError,
  StreamNotFoundError,
} from './stream/stream-errors.js';
export {
  isStreamId,
  type StreamPart,
  streamAttemptLabel,
  streamChunksLabel,
  streamId,
  streamLabel,
  streamPartLabel,
  streamSeqLabel,
} from './stream/stream-keys.js';
export {
  defaultStreamContentType,
  defaultStreamFlushBytes,
  defaultStreamFlushMs,
  type OpenStreamOptions,
  openStream,
  type StreamWriter,
} from './stream/stream-writer.js';
export {
  defaultTailIntervalMs,
  type StreamEvent,
  type TailStreamOptions,
  tailStream,
} from './stream/tail-stream.js';
export type {
  ByteRange,
  ContentRef,
  EmittedOutput,
  EmitWithRecordOptions,
  GcResult,
  IdempotencyScope,
  ListPage,
  ListQuery,
  OpenedBody,
  OrphanSweepOptions,
  OrphanSweepResult,
  OutputEvent,
  OutputRecord,
  OutputRef,
  OutputStore,
  Producer,
  RetentionPolicy,
  StorageKind,
} from './types.js';
export { validateOutputEvent } from './validate-event.js';
export { asWharfWrite, isReservedContentType, manifestPartLabel } from './wharf-writes.js';
