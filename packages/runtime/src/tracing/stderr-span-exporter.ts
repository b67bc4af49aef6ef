import { inspect } from 'node:util';
import { type ExportResult, ExportResultCode, hrTimeToMicroseconds } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';

/**
 * `OTEL_TRACES_EXPORTER=console`: each span as OpenTelemetry's `ConsoleSpanExporter` shows it,
 * written to stderr (its own writes to stdout, where `wharf … --json` prints what a program
 * parses). `write` is injectable for tests.
 *
 * @example
 * ```ts
 * new BatchSpanProcessor(new StderrSpanExporter());
 * ```
 */
export class StderrSpanExporter implements SpanExporter {
  readonly #write: (text: string) => void;

  constructor(write: (text: string) => void = (text) => process.stderr.write(text)) {
    this.#write = write;
  }

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    for (const span of spans) this.#write(`${inspect(spanInfo(span), { depth: 3 })}\n`);
    done({ code: ExportResultCode.SUCCESS });
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
}

function spanInfo(span: ReadableSpan): Record<string, unknown> {
  const context = span.spanContext();
  return {
    resource: { attributes: span.resource.attributes },
    instrumentationScope: span.instrumentationLibrary,
    traceId: context.traceId,
    parentId: span.parentSpanId,
    traceState: context.traceState?.serialize(),
    name: span.name,
    id: context.spanId,
    kind: span.kind,
    timestamp: hrTimeToMicroseconds(span.startTime),
    duration: hrTimeToMicroseconds(span.duration),
    attributes: span.attributes,
    status: span.status,
    events: span.events,
    links: span.links,
  };
}
