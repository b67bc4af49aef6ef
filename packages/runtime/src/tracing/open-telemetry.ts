// The only module that imports OpenTelemetry: loaded (`await import`) when tracing is on, so a
// worker without tracing needs none of these packages installed.
import { OpenTelemetry } from '@ai-sdk/otel';
import { context, propagation, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { Resource } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { OpenTelemetryPlugin } from '@temporalio/interceptors-opentelemetry';
import { StderrSpanExporter } from './stderr-span-exporter.js';
import type { TracingSettings } from './tracing-env.js';
import type { WharfTracing } from './wharf-tracing.js';

/** Options of {@link tracingWith}. */
export interface TracingParts {
  /** Where finished spans go (a `BatchSpanProcessor` on an exporter, or your own). */
  spanProcessors: SpanProcessor[];
  /** Resource attributes of every span. */
  resourceAttributes?: Readonly<Record<string, string>>;
  /** `service.name` of every span. */
  serviceName: string;
  recordContent?: boolean;
}

/**
 * A tracer provider of its own on the given processors, with Temporal's plugin, the AI SDK
 * integration and tool-call spans on its tracer. Registers, once per process and only if none
 * is there yet, the AsyncLocalStorage context manager (spans follow `await`s) and the W3C trace
 * context propagator (Temporal carries the context in headers); the tracer provider itself is
 * not made global.
 */
export function tracingWith(parts: TracingParts): WharfTracing {
  const contextManager = new AsyncLocalStorageContextManager().enable();
  if (!context.setGlobalContextManager(contextManager)) contextManager.disable();
  propagation.setGlobalPropagator(
    new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
  );
  const resource = Resource.default().merge(
    new Resource({ ...parts.resourceAttributes, 'service.name': parts.serviceName }),
  );
  const provider = new BasicTracerProvider({ resource, spanProcessors: parts.spanProcessors });
  const tracer = provider.getTracer('@wharf/orchestrator');
  // The workflow sink hands the sandbox's spans to one processor: fan them out to all.
  const spanProcessor: SpanProcessor = {
    onStart: (span, parent) => {
      for (const processor of parts.spanProcessors) processor.onStart(span, parent);
    },
    onEnd: (span) => {
      for (const processor of parts.spanProcessors) processor.onEnd(span);
    },
    forceFlush: async () => {
      await Promise.all(parts.spanProcessors.map((processor) => processor.forceFlush()));
    },
    shutdown: async () => {
      await Promise.all(parts.spanProcessors.map((processor) => processor.shutdown()));
    },
  };
  return {
    temporalPlugin: new OpenTelemetryPlugin({ tracer, resource, spanProcessor }),
    modelTelemetry: new OpenTelemetry({ tracer }),
    recordContent: parts.recordContent ?? false,
    traceToolCall: (call, run) =>
      tracer.startActiveSpan(
        `execute_tool ${call.toolName}`,
        {
          kind: SpanKind.INTERNAL,
          attributes: {
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': call.toolName,
            'gen_ai.tool.call.id': call.toolCallId,
          },
        },
        async (span) => {
          try {
            return await run();
          } catch (error) {
            span.recordException(error as Error);
            span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
            throw error;
          } finally {
            span.end();
          }
        },
      ),
    shutdown: () => provider.shutdown(),
  };
}

/**
 * Tracing as the environment asks (see `readTracingEnv`): an OTLP/HTTP exporter and/or the
 * console exporter (to stderr: stdout is where `--json` goes), each behind a `BatchSpanProcessor` (`OTEL_BSP_*` apply).
 */
export function tracingForSettings(settings: TracingSettings, serviceName: string): WharfTracing {
  const exporters = settings.exporters.map((kind) =>
    kind === 'otlp'
      ? new OTLPTraceExporter({ url: settings.otlpUrl, headers: { ...settings.otlpHeaders } })
      : new StderrSpanExporter(),
  );
  return tracingWith({
    spanProcessors: exporters.map((exporter) => new BatchSpanProcessor(exporter)),
    resourceAttributes: settings.resourceAttributes,
    serviceName: settings.serviceName ?? settings.resourceAttributes['service.name'] ?? serviceName,
    recordContent: settings.recordContent,
  });
}
