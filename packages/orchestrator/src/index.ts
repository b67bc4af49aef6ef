export {
  type ApprovalVerdict,
  answerApproval,
  approvalVerdict,
  openApproval,
  type PendingApproval,
  pendingApprovals,
  renderPendingApprovals,
} from './control/approval-gate.js';
export { type ConditionLookup, evaluateWhen, truthy, type WhenOutcome } from './control/evaluate-when.js';
export { expandMapLoop, MAX_MAP_ITEMS, type MapExpansion } from './control/expand-map-loop.js';
export {
  createOutputStoreStorageDriver,
  createWharfDataConverter,
  type OutputStoreStorageDriverOptions,
  type WharfDataConverterOptions,
} from './converter/output-store-storage-driver.js';
export { InvalidConditionError } from './dsl/invalid-condition-error.js';
export { type ParseSwarmOptions, parseSwarm, validateSwarm } from './dsl/parse-swarm.js';
export { formatSwarmIssue, SwarmDefinitionError, type SwarmIssue } from './dsl/swarm-definition-error.js';
export { SwarmDefinitionTooLargeError } from './dsl/swarm-definition-too-large-error.js';
export {
  type AgentDefinition,
  type ApprovalDefinition,
  durationSchema,
  type LoopDefinition,
  type SwarmDefinition,
  swarmDefinitionSchema,
  type TaskDefinition,
} from './dsl/swarm-schema.js';
export { defaultSwarmSizeLimits, type SwarmSizeLimits } from './dsl/swarm-size-limits.js';
export {
  ancestorsOf,
  dependencyOrder,
  findCycle,
  type GraphDefinition,
  type GraphTask,
  validateGraph,
} from './dsl/validate-graph.js';
export {
  type ComparisonOperator,
  type Condition,
  type ConditionLiteral,
  conditionAsExpression,
  conditionReferences,
  parseWhen,
} from './dsl/when-condition.js';
export {
  createModelRegistry,
  type ModelRegistry,
  type ModelRegistryOptions,
  type WharfLanguageModel,
} from './models/model-registry.js';
export { WharfOrchestratorError, type WharfOrchestratorErrorCode } from './orchestrator-error.js';
export {
  addInputSignal,
  approveTaskUpdate,
  cancelTaskUpdate,
  progressQuery,
  stateQuery,
} from './shared/definitions.js';
export { swarmSearchAttributes, wharfSearchAttributeKinds } from './shared/search-attributes.js';
export { describeSwarmFailure, isTaskFailure, swarmFailedErrorType } from './shared/swarm-failure.js';
export type {
  ApprovalState,
  ApproveTaskRequest,
  ApproveTaskResult,
  CarriedState,
  LiveInstance,
  OutputRefJson,
  SubagentHeartbeat,
  SubagentInput,
  SubagentResult,
  SuperviseInput,
  SuperviseResult,
  SwarmProgress,
  SwarmResult,
  SwarmWorkflowInput,
  TaskProgress,
  TaskStatus,
  WharfActivities,
} from './shared/types.js';
export {
  formatBytes,
  renderProgressTable,
  renderTaskTable,
  statusMarks,
} from './workflows/progress-table.js';
