// @wharf/client: the Wharf client and a local Temporal dev server.

export { billableActions } from './client/billable-actions.js';
export { type FinishedSwarmRun, readFinishedSwarmRun } from './client/read-swarm-run.js';
export { type RerunClient, type RerunHandle, type RerunOptions, rerunSwarm } from './client/rerun-swarm.js';
export { type RunHistoryStats, runChainHistory } from './client/run-chain-history.js';
export type { StartSwarmOptions, SwarmHandle } from './client/start-swarm-options.js';
export { swarmResultFromFailure } from './client/swarm-result-from-failure.js';
export {
  connectTemporal,
  DEFAULT_TEMPORAL_ADDRESS,
  type LoadTemporalConfigOptions,
  loadTemporalConfig,
  type TemporalConfig,
  type TemporalConnectionOptions,
} from './client/temporal-connection.js';
export {
  type ConnectWharfClientOptions,
  WharfClient,
  type WharfClientOptions,
  type WharfClientSettings,
} from './client/wharf-client.js';
export {
  type EnsureTemporalCliOptions,
  ensureTemporalCli,
  type TemporalCli,
  type TemporalCliSource,
} from './dev-server/ensure-temporal-cli.js';
export { getFreePort } from './dev-server/free-port.js';
export {
  type DevServer,
  type SearchAttributeKind,
  type StartDevServerOptions,
  startDevServer,
} from './dev-server/start-dev-server.js';
export {
  type EventsServer,
  type EventsServerOptions,
  startEventsServer,
} from './events/events-server.js';
export { followRunEvents, type RunEventsOptions } from './events/follow-run-events.js';
export { type DecodePayload, RunEventMapper } from './events/run-event-mapper.js';
