import type { SimplePlugin } from '@temporalio/plugin';
import type { Telemetry, TelemetryOptions } from 'ai';

/** The tool call a span is opened for. */
export interface TracedToolCall {
  toolName: string;
  toolCallId: string;
}

/**
 * OpenTelemetry tracing of a Wharf worker and its clients, made by `tracingFromEnv` or
 * `createWharfTracing` (from `@wharf/orchestrator/tracing`) and given to `wharfPlugin({ tracing })`
 * (or `composeWorker`, `startEmbedded`). Its parts need no OpenTelemetry import from the code
 * that holds it: a worker without tracing never loads OpenTelemetry.
 *
 * @example
 * ```ts
 * const tracing = await tracingFromEnv(); // undefined unless OTEL_TRACES_EXPORTER or an OTLP endpoint is set
 * const worker = await Worker.create({ connection, taskQueue: 'wharf', plugins: [wharfPlugin({ store, artifacts, tracing })] });
 * ```
 */
export interface WharfTracing {
  /**
   * Temporal's `OpenTelemetryPlugin` on this tracer: the client interceptor (a span per workflow
   * start, signal, query, update), the workflow interceptors (bundled with the workflows only
   * when tracing is on; their spans leave the sandbox through a sink) and the activity interceptor.
   */
  readonly temporalPlugin: SimplePlugin;
  /** The AI SDK telemetry integration (`@ai-sdk/otel`) each model call reports to. */
  readonly modelTelemetry: Telemetry;
  /** Whether model calls' spans record the messages sent and received (`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`). */
  readonly recordContent: boolean;
  /** Runs one tool call inside an `execute_tool <name>` span, a child of the active span. */
  traceToolCall<TResult>(call: TracedToolCall, run: () => Promise<TResult>): Promise<TResult>;
  /** Exports the spans still buffered and stops the exporter; call once the worker has stopped. */
  shutdown(): Promise<void>;
}

/**
 * The `telemetry` option of one AI SDK call: the tracing's integration (and whether to record
 * content), or nothing when tracing is off, which leaves the AI SDK's own defaults alone.
 *
 * @example
 * ```ts
 * await generateText({ model, messages, ...modelCallTelemetry(tracing, 'wharf.agent-model-step') });
 * ```
 */
export function modelCallTelemetry(
  tracing: WharfTracing | undefined,
  functionId: string,
): { telemetry?: TelemetryOptions } {
  return tracing === undefined
    ? {}
    : {
        telemetry: {
          functionId,
          integrations: [tracing.modelTelemetry],
          recordInputs: tracing.recordContent,
          recordOutputs: tracing.recordContent,
        },
      };
}
