export {
  type DevServer,
  type EnsureTemporalCliOptions,
  ensureTemporalCli,
  getFreePort,
  type SearchAttributeKind,
  type StartDevServerOptions,
  startDevServer,
  type TemporalCli,
  type TemporalCliSource,
} from '@wharf/client';
