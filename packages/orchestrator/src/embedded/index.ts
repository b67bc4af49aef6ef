export {
  type DataDir,
  type DataPlaneOptions,
  openDataDir,
  type ResolvedDataPlane,
  resolveDataPlane,
} from './data-dir.js';
export { ensureSearchAttributes } from './search-attributes.js';
export { type SpawnCredentialsOptions, spawnCredentials } from './spawn-credentials.js';
export { type Embedded, type EmbeddedOptions, startEmbedded } from './start-embedded.js';
export { type SwarmOutcomeLoggerOptions, swarmOutcomeLogger } from './swarm-outcome-logger.js';
