export type {
  ArtifactStore,
  ByteRange,
  ToolCallInput,
  ToolCallRecord,
  ToolOutputSource,
  WorkerMetadata,
  WorkerStatus,
} from './artifact-store.js';
export { checkEvidenceAccess, type EvidenceAccess } from './evidence-access.js';
export {
  type CompileOptions,
  type CompileReport,
  DEFAULT_EVIDENCE_BUDGET_BYTES,
  EvidenceCompiler,
} from './evidence-compiler.js';
export { EvidenceError, type EvidenceErrorCode } from './evidence-error.js';
export {
  type EvidenceMarker,
  type FoundEvidenceMarker,
  formatEvidenceMarker,
  type MalformedEvidenceMarker,
  neutralizeEvidenceMarkers,
  type ParsedEvidenceMarkers,
  parseEvidenceMarkers,
} from './evidence-marker.js';
export { type EvidenceMiddlewareOptions, evidenceMiddleware } from './evidence-middleware.js';
export { EVIDENCE_KIND_LABEL, isEvidenceRecord } from './evidence-record.js';
export { createEvidenceTools, type EvidenceTools, type EvidenceToolsOptions } from './evidence-tools.js';
export {
  discardFileSource,
  type FileSource,
  type FileSourceOptions,
  FileSourcePolicy,
} from './file-source.js';
export { formatSpawnResult, type SpawnResult, type ToolIndexEntry } from './format-spawn-result.js';
export { FsArtifactStore } from './fs-artifact-store.js';
export { formatArtifactId, parseArtifactId } from './ids.js';
export { InMemoryArtifactStore } from './in-memory-artifact-store.js';
export type { MountableMessage } from './message-text.js';
export {
  MAX_REPORTED_MALFORMED,
  type MountEvidenceOptions,
  type MountedMarker,
  type MountResult,
  mountEvidence,
} from './mount-evidence.js';
export { readSpawnResult } from './read-spawn-result.js';
export {
  type GetToolOutputInput,
  type GetWorkerEvidenceInput,
  getToolOutputInputSchema,
  getWorkerEvidenceInputSchema,
} from './schemas.js';
