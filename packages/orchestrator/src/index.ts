export { type ParseSwarmOptions, parseSwarm, validateSwarm } from './dsl/parse-swarm.js';
export { formatSwarmIssue, SwarmDefinitionError, type SwarmIssue } from './dsl/swarm-definition-error.js';
export {
  type AgentDefinition,
  type SwarmDefinition,
  swarmDefinitionSchema,
  type TaskDefinition,
} from './dsl/swarm-schema.js';
export { ancestorsOf, findCycle, validateGraph } from './dsl/validate-graph.js';
export {
  createModelRegistry,
  type ModelRegistry,
  type ModelRegistryOptions,
  type WharfLanguageModel,
} from './models/model-registry.js';
export { WharfOrchestratorError, type WharfOrchestratorErrorCode } from './orchestrator-error.js';
