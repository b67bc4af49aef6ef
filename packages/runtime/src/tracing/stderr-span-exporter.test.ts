import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { StderrSpanExporter } from './stderr-span-exporter.js';

describe('StderrSpanExporter', () => {
  it('writes each ended span where it is told (stderr by default), never to stdout', async () => {
    const written: string[] = [];
    const stdout: unknown[] = [];
    const original = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((chunk: unknown) => {
      stdout.push(chunk);
      return true;
    }) as typeof process.stdout.write;
    try {
      const provider = new BasicTracerProvider({
        spanProcessors: [new SimpleSpanProcessor(new StderrSpanExporter((text) => written.push(text)))],
      } as never);
      provider
        .getTracer('test')
        .startSpan('wharf.test-span', { attributes: { 'wharf.task': 'fetch' } })
        .end();
      await provider.forceFlush();
    } finally {
      process.stdout.write = original;
    }
    expect(stdout).toEqual([]);
    expect(written).toHaveLength(1);
    expect(written[0]).toContain("name: 'wharf.test-span'");
    expect(written[0]).toContain("'wharf.task': 'fetch'");
  });
});
