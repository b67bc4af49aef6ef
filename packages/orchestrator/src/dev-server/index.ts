export {
  type EnsureTemporalCliOptions,
  ensureTemporalCli,
  type TemporalCli,
  type TemporalCliSource,
} from './ensure-temporal-cli.js';
export { getFreePort } from './free-port.js';
export {
  type DevServer,
  type SearchAttributeKind,
  type StartDevServerOptions,
  startDevServer,
} from './start-dev-server.js';
