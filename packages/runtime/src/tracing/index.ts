// OpenTelemetry tracing: a subpath of its own, so that importing the worker never loads
// OpenTelemetry. Everything here loads it only when tracing is on.

export {
  type CreateWharfTracingOptions,
  createWharfTracing,
  startTracing,
  tracingFromEnv,
  tracingPackages,
} from './create-wharf-tracing.js';
export { readTracingEnv, type TracesExporter, type TracingSettings } from './tracing-env.js';
export type { TracedToolCall, WharfTracing } from './wharf-tracing.js';
