export { greetingWorkflow } from './greeting.js';
export { naiveSwarmWorkflow } from './naive.js';
export { payloadSizeWorkflow } from './payload-size.js';
