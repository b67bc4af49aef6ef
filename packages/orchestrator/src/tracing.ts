// OpenTelemetry tracing: a subpath of its own, so that importing the worker never loads
// OpenTelemetry. Everything here loads it only when tracing is on.

export type { TracedToolCall, WharfTracing } from '@wharf/runtime/tracing';
export {
  type CreateWharfTracingOptions,
  createWharfTracing,
  readTracingEnv,
  startTracing,
  type TracesExporter,
  type TracingSettings,
  tracingFromEnv,
  tracingPackages,
} from '@wharf/runtime/tracing';
