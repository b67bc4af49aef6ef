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
export { maskOutput } from './mask.js';
export {
  type ContextMetrics,
  type ContextMetricsOptions,
  formatContextMetrics,
  getContextMetrics,
} from './metrics.js';
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
  type CleanupStrategy,
  checkpointAndPrune,
  cleanupStrategyFromConfig,
  type PruneResult,
  pruneOutputs,
} from './prune.js';
export {
  calculateRelevance,
  dependencyDepths,
  RECENT_WINDOW_MS,
  type RelevanceOptions,
  relevanceScorer,
} from './relevance.js';
export {
  type CheckpointPruneConfig,
  type CleanupStrategyConfig,
  type ContextConfig,
  checkpointPruneSchema,
  cleanupStrategySchema,
  contextConfigSchema,
  type LimitsInput,
  limitsInputSchema,
  type OutputType,
  outputTypeSchema,
  type TaskContextConfig,
  type TaskDefinition,
  type TaskOutput,
  taskContextSchema,
  taskDefinitionSchema,
  taskOutputSchema,
  truncationStrategySchema,
  type WorkflowDefinition,
  workflowDefinitionSchema,
} from './schemas.js';
export {
  buildSmartContext,
  type ContextCandidate,
  type ContextEntry,
  type ContextSelection,
  renderContext,
  type SmartContext,
  type SmartContextOptions,
  selectContext,
} from './smart-context.js';
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
export { type TaskOutputFromCaptureOptions, taskOutputFromCapture } from './task-output.js';
export { type TruncationResult, truncateOutput, truncateToBytes } from './truncate.js';
export { utf8CutAfter, utf8CutBefore } from './utf8.js';
export {
  contextConfigFromLimits,
  markAccessed,
  recordTaskOutput,
  type WorkflowState,
} from './workflow-state.js';
