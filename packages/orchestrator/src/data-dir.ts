// The data directory and the data plane it names, without the worker, the client or the dev
// server: what commands that only read stored outputs and evidence need (`wharf outputs`,
// `wharf evidence`, `wharf status` without a run), so they start without loading Temporal.
export {
  type DataDir,
  type DataPlaneLocation,
  type DataPlaneOptions,
  dataPlaneIdentity,
  openDataDir,
  type ResolvedDataPlane,
  resolveDataPlane,
  type SubagentIds,
  safeId,
  subagentIds,
} from '@wharf/runtime';
