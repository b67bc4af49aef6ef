export {
  type DataDir,
  type DataPlaneLocation,
  type DataPlaneOptions,
  dataPlaneIdentity,
  openDataDir,
  type ResolvedDataPlane,
  resolveDataPlane,
} from '@wharf/runtime';
export { type SpawnCredentialsOptions, spawnCredentials } from '@wharf/runtime/worker';
export { ensureSearchAttributes } from './search-attributes.js';
export { type Embedded, type EmbeddedOptions, ownTaskQueue, startEmbedded } from './start-embedded.js';
export { type SwarmOutcomeLoggerOptions, swarmOutcomeLogger } from './swarm-outcome-logger.js';
