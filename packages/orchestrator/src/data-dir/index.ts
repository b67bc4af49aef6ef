// The data directory and the data plane it names, without the worker, the client or the dev
// server: what commands that only read stored outputs and evidence need (`wharf outputs`,
// `wharf evidence`, `wharf status` without a run), so they start without loading Temporal.
export { type SubagentIds, safeId, subagentIds } from '../activities/activity-identity.js';
export {
  type DataDir,
  type DataPlaneOptions,
  openDataDir,
  type ResolvedDataPlane,
  resolveDataPlane,
} from '../worker/data-dir.js';
export { type DataPlaneLocation, dataPlaneIdentity } from '../worker/data-plane-identity.js';
