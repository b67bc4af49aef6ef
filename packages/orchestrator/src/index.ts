// The workflow-safe root: the swarm DSL, types, handler definitions and pure helpers. Nothing
// reachable from here imports a Node builtin or a Node-only package (index.test.ts walks it);
// the data converter and the model registry are in `@wharf/orchestrator/node`.

// Sizes are written one way everywhere: the CLI and the Web UI table share `@wharf/common`'s.
export { formatBytes } from '@wharf/common';
export { contextMetrics } from './context/context-metrics.js';
export { planContext } from './context/plan-context.js';
export { pruneContext } from './context/prune-context.js';
export { dependencyDepths, RECENT_WINDOW_MS, relevanceScorer } from './context/relevance.js';
export {
  type ApprovalVerdict,
  answerApproval,
  approvalVerdict,
  approveCommand,
  openApproval,
  type PendingApproval,
  pendingApprovals,
  renderPendingApprovals,
} from './control/approval-gate.js';
export { type ConditionLookup, evaluateWhen, truthy, type WhenOutcome } from './control/evaluate-when.js';
export { expandMapLoop, type MapExpansion, type StoredListSource } from './control/expand-map-loop.js';
export {
  canonicalJson,
  planRerun,
  type RerunPlan,
  type RerunSource,
  type ReusableProgress,
  reusableWhole,
} from './control/rerun-plan.js';
export {
  callNeedsApproval,
  callPreview,
  TOOL_CALL_PREVIEW_CHARS,
  ToolCallApprovals,
  type ToolCallVerdict,
} from './control/tool-call-approvals.js';
export type { GraphDefinition, GraphTask } from './dsl/graph-definition.js';
export { InvalidConditionError } from './dsl/invalid-condition-error.js';
export { type MissingInput, missingInputs } from './dsl/missing-inputs.js';
export { MissingInputsError } from './dsl/missing-inputs-error.js';
export { type ParseSwarmOptions, parseSwarm, validateSwarm } from './dsl/parse-swarm.js';
export { formatSwarmIssue, SwarmDefinitionError, type SwarmIssue } from './dsl/swarm-definition-error.js';
export { SwarmDefinitionTooLargeError } from './dsl/swarm-definition-too-large-error.js';
export { defaultSwarmSizeLimits, type SwarmSizeLimits } from './dsl/swarm-size-limits.js';
export { ancestorsOf, dependencyOrder, findCycle, validateGraph } from './dsl/validate-graph.js';
export {
  type ComparisonOperator,
  type Condition,
  type ConditionLiteral,
  conditionAsExpression,
  conditionReferences,
  parseWhen,
} from './dsl/when-condition.js';
export { parseAge, parseSize } from './gc/retention-policy.js';
export { InvalidConfigError } from './invalid-config-error.js';
export { WharfOrchestratorError, type WharfOrchestratorErrorCode } from './orchestrator-error.js';
export { addUsage, formatUsage, swarmUsage } from './shared/agent-usage.js';
export { agentWorkflowId } from './shared/agent-workflow-id.js';
export {
  type ContextLimits,
  type ContextLimitsInput,
  defaultContextLimits,
  resolveContextLimits,
} from './shared/context-limits.js';
export {
  addInputSignal,
  addInputsUpdate,
  approveTaskUpdate,
  approveToolCallUpdate,
  cancelTaskUpdate,
  progressQuery,
  stateQuery,
  toolCallNoticeSignal,
} from './shared/definitions.js';
export { type FinalReportOptions, finalReport } from './shared/final-report.js';
export { renderProgressTable, renderTaskTable, statusMarks } from './shared/progress-table.js';
export { isReusedLoop, REUSED_WHOLE_FROM } from './shared/reused-loop.js';
export { mergeSandboxSettings, type SandboxSettings, sandboxSchema } from './shared/sandbox-schema.js';
export { swarmSearchAttributes, wharfSearchAttributeKinds } from './shared/search-attributes.js';
export { isStoredListValue, type StoredListValue, storedOutputOf } from './shared/stored-list.js';
export {
  describeSwarmFailure,
  isTaskFailure,
  nonRetryableFailureTypes,
  swarmFailedErrorType,
  wharfFailureTypes,
} from './shared/swarm-failure.js';
export {
  type AgentDefinition,
  type ApprovalDefinition,
  DEFAULT_MAX_ITEMS,
  durationSchema,
  type LoopDefinition,
  type SwarmDefinition,
  swarmDefinitionSchema,
  type TaskDefinition,
  type ToolApprovalRule,
  toolApprovalRuleSchema,
} from './shared/swarm-schema.js';
export { FINISHED_TASK_STATUSES, isFailure, isFinished, isOpen } from './shared/task-status.js';
export { alwaysOnToolNames, builtinToolNames } from './shared/tool-names.js';
export type {
  AddInputsRequest,
  AddInputsResult,
  AgentUsage,
  ApprovalState,
  ApproveTaskRequest,
  ApproveTaskResult,
  ApproveToolCallRequest,
  ApproveToolCallResult,
  CarriedState,
  ContextLoopNote,
  ContextLoopOutputs,
  ContextPlan,
  ContextPlanEntry,
  ContextPool,
  ContextPoolEntry,
  DataPlaneIdentity,
  IndexItemsInput,
  InstanceRecord,
  LiveInstance,
  ManifestPartInput,
  MapItems,
  OutputRefJson,
  PendingToolCall,
  PlanContextInput,
  PruneContextInput,
  RerunOrigin,
  ReusedLoop,
  ReusedResults,
  SubagentHeartbeat,
  SubagentInput,
  SubagentResult,
  SuperviseResult,
  SwarmContextMetrics,
  SwarmProgress,
  SwarmResult,
  SwarmWorkflowInput,
  TaskProgress,
  TaskStatus,
  ToolCallNotice,
  WharfActivities,
} from './shared/types.js';
