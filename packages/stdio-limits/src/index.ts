export {
  type CaptureProcessOptions,
  type CaptureProgress,
  captureProcess,
  type KillReason,
  type ProcessCapture,
} from './capture-process.js';
export { type CaptureStreamOptions, captureStream } from './capture-stream.js';
export { allocateCombined, type CombinedBudgetInput } from './combined-budget.js';
export { type CutParts, formatCut, type TruncationStrategy } from './cut-marker.js';
export {
  DEFAULT_LIMITS,
  parseLimits,
  parseWorkflow,
  parseWorkflowYaml,
  type ResolvedLimits,
  resolveLimits,
} from './limits.js';
export { type KillMarkedOptions, killMarkedProcesses, markedProcesses } from './marked-processes.js';
export { ProcessCgroup } from './process-cgroup.js';
export {
  groupMembers,
  processGroupAlive,
  type TerminateGroupOptions,
  terminateProcessGroup,
} from './process-group.js';
export {
  PROCESS_GROUP_TOKEN_ENV,
  type ProcessGroupEntry,
  ProcessGroupRegistry,
  type ReapOptions,
} from './process-group-registry.js';
export {
  directSpawner,
  type ProcessSpawner,
  type SpawnedExit,
  type SpawnedProcess,
  type SpawnRequest,
} from './process-spawner.js';
export { Sandbox, type SandboxDetection, type SandboxDetectOptions } from './sandbox.js';
export {
  bwrapArguments,
  limitArguments,
  SANDBOX_UID,
  type SandboxPolicy,
  type SandboxSocket,
} from './sandbox-policy.js';
export {
  type LimitsInput,
  limitsInputSchema,
  type TaskLimits,
  taskLimitsSchema,
  truncationStrategySchema,
  type WorkflowDefinition,
  workflowDefinitionSchema,
} from './schemas.js';
export {
  DEFAULT_MAX_SPAWN_REQUEST_BYTES,
  SPAWN_HELPER_ENV,
  SpawnServer,
  type SpawnServerOptions,
} from './spawn-server.js';
export type { SpillFile } from './spill-writer.js';
export { StdioLimitsError, type StdioLimitsErrorCode, type StdioLimitsIssue } from './stdio-limits-error.js';
export type { StreamCapture, StreamSpillOptions } from './stream-accumulator.js';
export {
  renderSummary,
  type SummarizeOptions,
  type Summarizer,
  type SummaryRequest,
  summarizeOutput,
} from './summarize.js';
export { type SummarizeCaptureOptions, summarizeCapture } from './summarize-capture.js';
export { type TruncationResult, truncateOutput, truncateToBytes } from './truncate.js';
