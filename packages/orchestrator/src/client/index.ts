export { InvalidConfigError } from '../invalid-config-error.js';
export { type RunHistoryStats, runChainHistory } from './run-chain-history.js';
export { swarmResultFromFailure } from './swarm-result-from-failure.js';
export {
  connectTemporal,
  DEFAULT_TEMPORAL_ADDRESS,
  type LoadTemporalConfigOptions,
  loadTemporalConfig,
  type TemporalConfig,
  type TemporalConnectionOptions,
} from './temporal-connection.js';
export {
  type ConnectWharfClientOptions,
  type StartSwarmOptions,
  type SwarmHandle,
  WharfClient,
  type WharfClientOptions,
  type WharfClientSettings,
} from './wharf-client.js';
