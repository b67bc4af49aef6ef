// @wharf/workflows: the workflows and what clients need of them (handler definitions, search attributes).
// The worker bundles `./bundle` (the workflow functions only).
// Workflow-safe: nothing reachable from here imports a Node builtin or a Node-only package.

export {
  addInputSignal,
  addInputsUpdate,
  approveTaskUpdate,
  approveToolCallUpdate,
  cancelledBySignal,
  cancelTaskUpdate,
  progressQuery,
  stateQuery,
  toolCallNoticeSignal,
} from './handler-definitions.js';
export { newSwarmVisibility } from './new-swarm-visibility.js';
export { swarmSearchAttributes, wharfSearchAttributeKinds } from './search-attributes.js';
