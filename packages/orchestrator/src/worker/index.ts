/** Records running scripts' process groups; a restarted worker reaps what a killed one left. */
export { ProcessGroupRegistry } from '@wharf/stdio-limits';
export { type SubagentIds, safeId, subagentIds } from '../activities/activity-identity.js';
export { type ActivityDependencies, createActivities } from '../activities/create-activities.js';
export {
  type ComposedWorker,
  type ComposedWorkerRun,
  type ComposeWorkerOptions,
  composeWorker,
  type IntakeLimits,
  type StartComposedWorkerOptions,
} from './compose-worker.js';
export { createWharfWorker, type WharfWorkerOptions, workflowsPath } from './create-wharf-worker.js';
