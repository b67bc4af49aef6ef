export type { StartSwarmOptions, SwarmHandle } from '@wharf/client';
export {
  billableActions,
  type ConnectWharfClientOptions,
  connectTemporal,
  DEFAULT_TEMPORAL_ADDRESS,
  type FinishedSwarmRun,
  type LoadTemporalConfigOptions,
  loadTemporalConfig,
  type RerunClient,
  type RerunHandle,
  type RerunOptions,
  type RunHistoryStats,
  readFinishedSwarmRun,
  rerunSwarm,
  runChainHistory,
  swarmResultFromFailure,
  type TemporalConfig,
  type TemporalConnectionOptions,
  WharfClient,
  type WharfClientOptions,
  type WharfClientSettings,
} from '@wharf/client';
export { InvalidConfigError } from '@wharf/swarm';
