export { type RunHistoryStats, runChainHistory } from './run-chain-history.js';
export { swarmResultFromFailure } from './swarm-result-from-failure.js';
export {
  type StartSwarmOptions,
  type SwarmHandle,
  WharfClient,
  type WharfClientOptions,
} from './wharf-client.js';
