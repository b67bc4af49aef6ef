// @wharf/swarm: the swarm language (DSL), its contracts, the relevance pool and the pure state machine.
// Workflow-safe: nothing reachable from here imports a Node builtin or a Node-only package.

export {
  type AgentCommand,
  type AgentEvent,
  type AgentLoopSetup,
  type AgentLoopState,
  agentProgress,
  nextAgentStep,
  type SpawnOutcome,
  startAgentLoop,
} from './agent-loop/agent-loop-state.js';
export {
  type ApprovalVerdict,
  answerApproval,
  approvalVerdict,
  approveCommand,
  openApproval,
  type PendingApproval,
  pendingApprovals,
  renderPendingApprovals,
} from './approvals/approval-gate.js';
export {
  callNeedsApproval,
  callPreview,
  TOOL_CALL_PREVIEW_CHARS,
  ToolCallApprovals,
  type ToolCallVerdict,
} from './approvals/tool-call-approvals.js';
export type {
  AgentActivities,
  AgentFinishInput,
  AgentModelStepResult,
  AgentStartResult,
  AgentStepInput,
  AgentTaskInput,
  AgentToolCallInput,
  AgentToolCallRef,
  AgentToolCallResult,
  AgentUsage,
  SpawnedWorker,
  SpawnRequest,
  StoreSubagentDefinitionInput,
  SubagentDefinition,
  SubagentInput,
  SubagentRefInput,
  SubagentResult,
  SuperviseResult,
  WharfActivities,
} from './contracts/agent-contracts.js';
export { agentTaskInput, promptedTask } from './contracts/agent-task-input.js';
export { agentWorkflowId } from './contracts/agent-workflow-id.js';
export { ANSWER_EVENTS_SCHEMA, type AnswerEvent, answerEventSchema } from './contracts/answer-events.js';
export {
  type ContextLimits,
  type ContextLimitsInput,
  captureLimitsOf,
  defaultContextLimits,
  resolveContextLimits,
} from './contracts/context-limits.js';
export type {
  DataPlaneIdentity,
  IndexItemsInput,
  InstanceRecord,
  ManifestPartInput,
  MapItems,
  OutputRefJson,
} from './contracts/data-plane-contracts.js';
export type {
  AddInputsRequest,
  AddInputsResult,
  ApproveTaskRequest,
  ApproveTaskResult,
  ApproveToolCallRequest,
  ApproveToolCallResult,
  ToolCallNotice,
} from './contracts/handler-contracts.js';
export type {
  ApprovalState,
  ChildSwarmProgress,
  LiveInstance,
  PendingToolCall,
  SubagentHeartbeat,
  SwarmProgress,
  TaskProgress,
  TaskStatus,
} from './contracts/progress-contracts.js';
export type {
  ContextLoopNote,
  ContextLoopOutputs,
  ContextPlan,
  ContextPlanEntry,
  ContextPool,
  ContextPoolEntry,
  PlanContextInput,
  PooledLoopOutput,
  PruneContextInput,
  SwarmContextMetrics,
} from './contracts/relevance-pool-contracts.js';
export { type GcPolicy, parseAge, parseSize } from './contracts/retention-policy.js';
export { isReusedLoop, REUSED_WHOLE_FROM } from './contracts/reused-loop.js';
export {
  RUN_EVENTS_SCHEMA,
  type RunEvent,
  type RunEventType,
  runEventSchema,
  type UnnumberedRunEvent,
} from './contracts/run-events.js';
export { mergeSandboxSettings, type SandboxSettings, sandboxSchema } from './contracts/sandbox-schema.js';
export { isStoredListValue, type StoredListValue, storedOutputOf } from './contracts/stored-list.js';
export { subagentDefinitionContentType } from './contracts/subagent-definition-type.js';
export type {
  CarriedState,
  NestedRerun,
  RerunOrigin,
  ReusedLoop,
  ReusedResults,
  SwarmResult,
  SwarmWorkflowInput,
} from './contracts/swarm-contracts.js';
export {
  describeSwarmFailure,
  isTaskFailure,
  nonRetryableFailureTypes,
  swarmFailedErrorType,
  wharfFailureTypes,
} from './contracts/swarm-failure.js';
export {
  type AgentDefinition,
  type ApprovalDefinition,
  DEFAULT_MAX_ITEMS,
  durationSchema,
  isReferenceInput,
  type LoopDefinition,
  type SwarmDefinition,
  swarmDefinitionSchema,
  type TaskDefinition,
  type ToolApprovalRule,
  toolApprovalRuleSchema,
} from './contracts/swarm-schema.js';
export { nestedTask, swarmTaskWorkflowId } from './contracts/swarm-task-workflow-id.js';
export { FINISHED_TASK_STATUSES, isFailure, isFinished, isOpen } from './contracts/task-status.js';
export {
  alwaysOnToolNames,
  builtinToolNames,
  DEFAULT_MAX_SPAWNS,
  spawnWorkerToolName,
} from './contracts/tool-names.js';
export { formatPath } from './dsl/format-path.js';
export type { GraphDefinition, GraphTask } from './dsl/graph-definition.js';
export { InvalidConditionError } from './dsl/invalid-condition-error.js';
export {
  childSwarm,
  DEFAULT_SWARM_DEPTH,
  type LoadSwarmTreeOptions,
  loadSwarmTree,
  type SwarmFile,
} from './dsl/load-swarm-tree.js';
export { type MissingInput, missingInputs } from './dsl/missing-inputs.js';
export { MissingInputsError } from './dsl/missing-inputs-error.js';
export { locateIssues, type ParseSwarmOptions, parseSwarm, validateSwarm } from './dsl/parse-swarm.js';
export { nameHint } from './dsl/suggest-names.js';
export { formatSwarmIssue, SwarmDefinitionError, type SwarmIssue } from './dsl/swarm-definition-error.js';
export { SwarmDefinitionTooLargeError } from './dsl/swarm-definition-too-large-error.js';
export { type MissingSwarmInput, missingSwarmInputs, swarmInputNames } from './dsl/swarm-input-names.js';
export { defaultSwarmSizeLimits, type SwarmSizeLimits } from './dsl/swarm-size-limits.js';
export { instanceLabel, isLooped } from './dsl/task-instances.js';
export { ancestorsOf, dependencyOrder, findCycle, validateGraph } from './dsl/validate-graph.js';
export {
  type ComparisonOperator,
  type Condition,
  type ConditionLiteral,
  conditionAsExpression,
  conditionReferences,
  parseWhen,
} from './dsl/when-condition.js';
export { YamlLocator } from './dsl/yaml-locator.js';
export { InvalidConfigError } from './invalid-config-error.js';
export { WharfOrchestratorError, type WharfOrchestratorErrorCode } from './orchestrator-error.js';
export { contextMetrics } from './relevance-pool/context-metrics.js';
export { planContext } from './relevance-pool/plan-context.js';
export { pruneContext } from './relevance-pool/prune-context.js';
export { dependencyDepths, RECENT_WINDOW_MS, relevanceScorer } from './relevance-pool/relevance.js';
export { addUsage, formatUsage, swarmUsage } from './report/agent-usage.js';
export { type FinalReportOptions, finalReport } from './report/final-report.js';
export { renderProgressTable, renderTaskTable, statusMarks } from './report/progress-table.js';
export {
  type RunPlace,
  type SubagentCall,
  type SupervisorCall,
  splitSubagentInput,
  subagentCall,
  supervisorCall,
} from './swarm/activity-calls.js';
export { CHILD_PREVIEW_CHARS, childSwarmResult } from './swarm/child-swarm-result.js';
export { applyPrune, capPool, duePrunes, markRead, POOL_PER_LOOP } from './swarm/context-pool.js';
export { contextRequest } from './swarm/context-request.js';
export { type ConditionLookup, evaluateWhen, truthy, type WhenOutcome } from './swarm/evaluate-when.js';
export { expandMapLoop, type MapExpansion, type StoredListSource } from './swarm/expand-map-loop.js';
export { foldOutcomes, type InstanceOutcome } from './swarm/fold-step.js';
export { endToolCalls, noteToolCall } from './swarm/pending-tool-calls.js';
export { failUnresolved, type IndexRequest, nextStep, type ScheduledInstance } from './swarm/plan-step.js';
export {
  canonicalJson,
  checkRerunFrom,
  planRerun,
  type RerunPlan,
  type RerunSource,
  type ReusableProgress,
  reusableWhole,
} from './swarm/rerun-plan.js';
export { reusePoolTimes } from './swarm/reuse-pool-times.js';
export { type ResultsPart, resultsParts, storedResultsPart } from './swarm/stored-results.js';
export { failedBeforeOutput } from './swarm/subagent-failure.js';
export { addInputs, checkInputs } from './swarm/swarm-inputs.js';
export {
  liveProgress,
  nextGateDeadline,
  openGates,
  orderedCompacts,
  swarmProgress,
  swarmResult,
  swarmStatus,
  taskProgress,
} from './swarm/swarm-report.js';
export {
  carriedState,
  createSwarmState,
  remainingReuse,
  reusedResult,
  type SwarmState,
  taskSpec,
  unfinishedTasks,
} from './swarm/swarm-state.js';
export { type TaskCounts, taskCounts } from './swarm/task-counts.js';
export { answerTaskApproval, cancelTask, checkApproval } from './swarm/task-requests.js';
export { visibleProgress, waitingMemo } from './swarm/visible-progress.js';
