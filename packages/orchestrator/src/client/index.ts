export { InvalidConfigError } from '../invalid-config-error.js';
export { billableActions } from './billable-actions.js';
export { type FinishedSwarmRun, readFinishedSwarmRun } from './read-swarm-run.js';
export { type RerunClient, type RerunHandle, type RerunOptions, rerunSwarm } from './rerun-swarm.js';
export { type RunHistoryStats, runChainHistory } from './run-chain-history.js';
export type { StartSwarmOptions, SwarmHandle } from './start-swarm-options.js';
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
  WharfClient,
  type WharfClientOptions,
  type WharfClientSettings,
} from './wharf-client.js';
