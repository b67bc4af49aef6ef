export { type SubagentIds, safeId, subagentIds } from '../activities/activity-identity.js';
export { type ActivityDependencies, createActivities } from '../activities/create-activities.js';
export { createWharfWorker, type WharfWorkerOptions, workflowsPath } from './create-wharf-worker.js';
