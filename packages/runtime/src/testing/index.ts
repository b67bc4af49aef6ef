export {
  PROVIDER_USAGE,
  type ProviderProtocol,
  type ProviderReply,
  type ProviderRequest,
  type ProviderServer,
  providerEnv,
  type SentTurn,
  sentTurn,
  startProviderServer,
} from './provider-server.js';
