export {
  type StartSwarmOptions,
  type SwarmHandle,
  WharfClient,
  type WharfClientOptions,
} from './wharf-client.js';
