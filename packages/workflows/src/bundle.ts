// Entry point bundled into the Temporal workflow sandbox. Everything reachable from here
// must be deterministic: no Node builtins, no clocks, no randomness.

export { agentTaskWorkflow } from './agent-task-workflow.js';
export { swarmWorkflow } from './swarm-workflow.js';
