export { type SpawnCredentialsOptions, spawnCredentials } from '../activities/spawn-credentials.js';
export {
  type DataDir,
  type DataPlaneOptions,
  openDataDir,
  type ResolvedDataPlane,
  resolveDataPlane,
} from '../worker/data-dir.js';
export { type DataPlaneLocation, dataPlaneIdentity } from '../worker/data-plane-identity.js';
export { ensureSearchAttributes } from './search-attributes.js';
export { type Embedded, type EmbeddedOptions, ownTaskQueue, startEmbedded } from './start-embedded.js';
export { type SwarmOutcomeLoggerOptions, swarmOutcomeLogger } from './swarm-outcome-logger.js';
