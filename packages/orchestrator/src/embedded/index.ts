export {
  type DataDir,
  type DataPlaneOptions,
  openDataDir,
  type ResolvedDataPlane,
  resolveDataPlane,
} from './data-dir.js';
export { type DataPlaneLocation, dataPlaneIdentity } from './data-plane-identity.js';
export { ensureSearchAttributes } from './search-attributes.js';
export { type SpawnCredentialsOptions, spawnCredentials } from './spawn-credentials.js';
export { type Embedded, type EmbeddedOptions, ownTaskQueue, startEmbedded } from './start-embedded.js';
export { swarmOutcomeLogger } from './swarm-outcome-logger.js';
