import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { InvalidConfigError } from '@wharf/swarm';
import { readTracingEnv, type TracingSettings } from './tracing-env.js';
import type { WharfTracing } from './wharf-tracing.js';

/** What tracing needs installed besides `@wharf/orchestrator` (optional peer dependencies). */
export const tracingPackages = [
  '@temporalio/interceptors-opentelemetry',
  '@ai-sdk/otel',
  '@opentelemetry/api',
  '@opentelemetry/core',
  '@opentelemetry/context-async-hooks',
  '@opentelemetry/resources',
  '@opentelemetry/sdk-trace-base',
  '@opentelemetry/exporter-trace-otlp-proto',
] as const;

/** Options of {@link createWharfTracing}. */
export interface CreateWharfTracingOptions {
  /** Where finished spans go, e.g. `new BatchSpanProcessor(exporter)` or `new SimpleSpanProcessor(new InMemorySpanExporter())`. */
  spanProcessors: SpanProcessor[];
  /** `service.name` of the spans. Default `wharf`. */
  serviceName?: string;
  resourceAttributes?: Readonly<Record<string, string>>;
  /** Model spans record the prompts and answers. Default false. */
  recordContent?: boolean;
}

/**
 * Tracing on span processors of your choice (an exporter the environment cannot name, or an
 * in-memory one in tests). See {@link tracingFromEnv} for the environment's.
 *
 * @example
 * ```ts
 * const exporter = new InMemorySpanExporter();
 * const tracing = await createWharfTracing({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
 * const worker = await Worker.create({ connection, taskQueue, plugins: [wharfPlugin({ store, artifacts, tracing })] });
 * ```
 */
export async function createWharfTracing(options: CreateWharfTracingOptions): Promise<WharfTracing> {
  const { tracingWith } = await loadOpenTelemetry('createWharfTracing');
  return tracingWith({
    spanProcessors: options.spanProcessors,
    serviceName: options.serviceName ?? 'wharf',
    ...(options.resourceAttributes === undefined ? {} : { resourceAttributes: options.resourceAttributes }),
    ...(options.recordContent === undefined ? {} : { recordContent: options.recordContent }),
  });
}

/**
 * Tracing as the standard `OTEL_*` variables ask (see `readTracingEnv`), or undefined when they
 * leave it off (the default). Spans go from the swarm workflow through its agent workflows
 * and activities to each model call and tool call. OpenTelemetry is loaded only when tracing is
 * on; when it is on and the packages are not installed, an `InvalidConfigError` names the
 * variable and the packages to add.
 *
 * @example
 * ```ts
 * // OTEL_EXPORTER_OTLP_ENDPOINT=http://collector:4318 OTEL_SERVICE_NAME=swarms
 * const tracing = await tracingFromEnv(process.env, { serviceName: 'wharf-worker' });
 * // … run the worker with wharfPlugin({ …, tracing }), then:
 * await tracing?.shutdown();
 * ```
 */
export async function tracingFromEnv(
  env: Readonly<Record<string, string | undefined>> = process.env,
  options: { serviceName?: string } = {},
): Promise<WharfTracing | undefined> {
  const settings = readTracingEnv(env);
  return settings === undefined ? undefined : startTracing(settings, options);
}

/**
 * Tracing from settings read earlier with `readTracingEnv` (a worker checks its environment
 * before it starts anything).
 *
 * @example
 * ```ts
 * const settings = readTracingEnv(process.env);
 * const tracing = settings && (await startTracing(settings, { serviceName: 'wharf-worker' }));
 * ```
 */
export async function startTracing(
  settings: TracingSettings,
  options: { serviceName?: string } = {},
): Promise<WharfTracing> {
  const { tracingForSettings } = await loadOpenTelemetry(settings.enabledBy);
  return tracingForSettings(settings, options.serviceName ?? 'wharf');
}

async function loadOpenTelemetry(setting: string): Promise<typeof import('./open-telemetry.js')> {
  try {
    return await import('./open-telemetry.js');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw error;
    throw new InvalidConfigError(
      setting,
      `${setting} turns tracing on, but OpenTelemetry is not installed (${(error as Error).message.split('\n')[0]}); add ${tracingPackages.join(' ')}`,
      { cause: error },
    );
  }
}
