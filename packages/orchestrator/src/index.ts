export {
  createOutputStoreStorageDriver,
  createWharfDataConverter,
  type OutputStoreStorageDriverOptions,
  type WharfDataConverterOptions,
} from './converter/output-store-storage-driver.js';
export type { GraphDefinition, GraphTask } from './dsl/graph-definition.js';
export { type ParseSwarmOptions, parseSwarm, validateSwarm } from './dsl/parse-swarm.js';
export { formatSwarmIssue, SwarmDefinitionError, type SwarmIssue } from './dsl/swarm-definition-error.js';
export { SwarmDefinitionTooLargeError } from './dsl/swarm-definition-too-large-error.js';
export {
  type AgentDefinition,
  type SwarmDefinition,
  swarmDefinitionSchema,
  type TaskDefinition,
} from './dsl/swarm-schema.js';
export { defaultSwarmSizeLimits, type SwarmSizeLimits } from './dsl/swarm-size-limits.js';
export { ancestorsOf, dependencyOrder, findCycle, validateGraph } from './dsl/validate-graph.js';
export {
  createModelRegistry,
  type ModelRegistry,
  type ModelRegistryOptions,
  type WharfLanguageModel,
} from './models/model-registry.js';
export { WharfOrchestratorError, type WharfOrchestratorErrorCode } from './orchestrator-error.js';
export { addInputSignal, cancelTaskUpdate, progressQuery, stateQuery } from './shared/definitions.js';
export { swarmSearchAttributes, wharfSearchAttributeKinds } from './shared/search-attributes.js';
export { describeSwarmFailure, isTaskFailure, swarmFailedErrorType } from './shared/swarm-failure.js';
export type {
  CarriedState,
  OutputRefJson,
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
