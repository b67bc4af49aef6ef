import { InvalidConfigError } from '@wharf/swarm';
import { describe, expect, it } from 'vitest';
import { readTracingEnv } from './tracing-env.js';

function failure(env: Record<string, string>): InvalidConfigError {
  try {
    readTracingEnv(env);
  } catch (error) {
    if (InvalidConfigError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected an InvalidConfigError');
}

describe('readTracingEnv', () => {
  it('is off unless an exporter or an OTLP endpoint is named', () => {
    expect(readTracingEnv({})).toBeUndefined();
    expect(readTracingEnv({ OTEL_SERVICE_NAME: 'swarms', OTEL_TRACES_EXPORTER: '' })).toBeUndefined();
    expect(
      readTracingEnv({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }),
    ).toBe(undefined);
    expect(readTracingEnv({ OTEL_SDK_DISABLED: 'true', OTEL_TRACES_EXPORTER: 'otlp' })).toBeUndefined();
  });

  it('an OTLP endpoint turns it on, with the traces path added as the specification says', () => {
    expect(
      readTracingEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/', OTEL_SERVICE_NAME: 'swarms' }),
    ).toEqual({
      exporters: ['otlp'],
      enabledBy: 'OTEL_EXPORTER_OTLP_ENDPOINT',
      otlpUrl: 'http://collector:4318/v1/traces',
      otlpHeaders: {},
      serviceName: 'swarms',
      resourceAttributes: {},
      recordContent: false,
    });
    expect(
      readTracingEnv({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example/ingest',
      })?.otlpUrl,
    ).toBe('https://traces.example/ingest');
  });

  it('reads exporters, headers, resource attributes and content capture', () => {
    const settings = readTracingEnv({
      OTEL_TRACES_EXPORTER: 'otlp, console',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-team=wharf,authorization=Bearer%20abc',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-team=swarms',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=prod,service.namespace=agents',
      OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'TRUE',
    });
    expect(settings).toMatchObject({
      exporters: ['otlp', 'console'],
      enabledBy: 'OTEL_TRACES_EXPORTER',
      otlpUrl: 'http://localhost:4318/v1/traces',
      otlpHeaders: { 'x-team': 'swarms', authorization: 'Bearer abc' },
      resourceAttributes: { 'deployment.environment': 'prod', 'service.namespace': 'agents' },
      recordContent: true,
    });
  });

  it('names the variable of a value it cannot use', () => {
    expect(failure({ OTEL_TRACES_EXPORTER: 'otlp,jaeger' })).toMatchObject({
      setting: 'OTEL_TRACES_EXPORTER',
      message: expect.stringContaining('"jaeger" is not supported'),
    });
    expect(failure({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }).setting).toBe(
      'OTEL_EXPORTER_OTLP_PROTOCOL',
    );
    expect(
      failure({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json' }).setting,
    ).toBe('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL');
    // The console exporter does not care about the OTLP protocol.
    expect(
      readTracingEnv({ OTEL_TRACES_EXPORTER: 'console', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }),
    ).toBeDefined();
    expect(failure({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }).message).toBe(
      'OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" is not an http(s) URL',
    );
    expect(failure({ OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' }).setting).toBe('OTEL_EXPORTER_OTLP_ENDPOINT');
    expect(failure({ OTEL_TRACES_EXPORTER: 'console', OTEL_RESOURCE_ATTRIBUTES: 'team' })).toMatchObject({
      setting: 'OTEL_RESOURCE_ATTRIBUTES',
      message: 'OTEL_RESOURCE_ATTRIBUTES: "team" is not key=value',
    });
  });
});
