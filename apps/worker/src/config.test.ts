import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { intakeLimits, loadWorkerConfig } from './config.js';
import { WorkerConfigError } from './worker-config-error.js';

describe('loadWorkerConfig', () => {
  it('applies defaults', () => {
    expect(loadWorkerConfig({})).toMatchObject({
      temporal: { address: '127.0.0.1:7233', namespace: 'default', configured: false },
      tracing: undefined,
      WHARF_TASK_QUEUE: 'wharf',
      WHARF_MAX_CONCURRENT: 8,
      LOG_LEVEL: 'info',
    });
  });

  it("reads the cluster from Temporal's standard variables, and tracing from OTEL_*", () => {
    const config = loadWorkerConfig({
      TEMPORAL_ADDRESS: 'eu-west-1.aws.api.temporal.io:7233',
      TEMPORAL_NAMESPACE: 'swarms.a1b2c',
      TEMPORAL_API_KEY: 'key',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
    });
    expect(config.temporal).toMatchObject({
      namespace: 'swarms.a1b2c',
      connection: { address: 'eu-west-1.aws.api.temporal.io:7233', apiKey: 'key', tls: true },
    });
    expect(config.tracing).toMatchObject({ exporters: ['otlp'], otlpUrl: 'http://collector:4318/v1/traces' });
  });

  it('names a Temporal or tracing variable that cannot work, with the others', () => {
    let caught: unknown;
    try {
      loadWorkerConfig({
        TEMPORAL_TLS_SERVER_CA_CERT_PATH: '/no/such/ca.pem',
        OTEL_TRACES_EXPORTER: 'zipkin',
        WHARF_MAX_CONCURRENT: 'many',
      });
    } catch (error) {
      caught = error;
    }
    expect(WorkerConfigError.isInstance(caught)).toBe(true);
    expect([...(caught as WorkerConfigError).variables].sort()).toEqual([
      'OTEL_TRACES_EXPORTER',
      'TEMPORAL_TLS_SERVER_CA_CERT_PATH',
      'WHARF_MAX_CONCURRENT',
    ]);
    expect((caught as Error).message).toContain(
      'TEMPORAL_TLS_SERVER_CA_CERT_PATH: cannot read /no/such/ca.pem: ENOENT',
    );
    expect((caught as Error).message).toContain('OTEL_TRACES_EXPORTER: "zipkin" is not supported');
  });

  it('reads the Worker Deployment version: both variables or neither', () => {
    expect(loadWorkerConfig({}).version).toBeUndefined();
    expect(loadWorkerConfig({ WHARF_DEPLOYMENT_NAME: '', WHARF_BUILD_ID: '' }).version).toBeUndefined();
    expect(loadWorkerConfig({ WHARF_DEPLOYMENT_NAME: 'wharf', WHARF_BUILD_ID: '0.1.0-abc' }).version).toEqual(
      {
        deploymentName: 'wharf',
        buildId: '0.1.0-abc',
      },
    );
    let refused: unknown;
    try {
      loadWorkerConfig({ WHARF_BUILD_ID: '0.1.0-abc' });
    } catch (error) {
      refused = error;
    }
    expect(WorkerConfigError.isInstance(refused)).toBe(true);
    expect((refused as WorkerConfigError).variables).toEqual(['WHARF_BUILD_ID']);
    expect((refused as Error).message).toContain('WHARF_BUILD_ID: is set without WHARF_DEPLOYMENT_NAME');
    expect(() => loadWorkerConfig({ WHARF_DEPLOYMENT_NAME: 'wharf.v2', WHARF_BUILD_ID: 'b' })).toThrow(
      /WHARF_DEPLOYMENT_NAME: the deployment name contains "\." or ":"/,
    );
  });

  it('coerces numbers from the environment', () => {
    expect(loadWorkerConfig({ WHARF_HEALTH_PORT: '8080', WHARF_MAX_CONCURRENT: '32' })).toMatchObject({
      WHARF_HEALTH_PORT: 8080,
      WHARF_MAX_CONCURRENT: 32,
    });
  });

  it('names every bad variable', () => {
    let caught: unknown;
    try {
      loadWorkerConfig({ WHARF_HEALTH_PORT: '99999', LOG_LEVEL: 'loud', WHARF_MAX_CONCURRENT: 'many' });
    } catch (error) {
      caught = error;
    }
    expect(WorkerConfigError.isInstance(caught)).toBe(true);
    const message = (caught as Error).message;
    expect(message).toContain('WHARF_HEALTH_PORT');
    expect(message).toContain('LOG_LEVEL');
    expect(message).toContain('WHARF_MAX_CONCURRENT');
  });

  it('checks WHARF_PASS_ENV is a list of variable names', () => {
    expect(loadWorkerConfig({ WHARF_PASS_ENV: 'GH_TOKEN, DEPLOY_KEY' }).WHARF_PASS_ENV).toBe(
      'GH_TOKEN, DEPLOY_KEY',
    );
    let caught: unknown;
    try {
      loadWorkerConfig({ WHARF_PASS_ENV: 'GH_TOKEN,not-a-name' });
    } catch (error) {
      caught = error;
    }
    expect(WorkerConfigError.isInstance(caught) && caught.variables).toEqual(['WHARF_PASS_ENV']);
    expect((caught as Error).message).toContain('WHARF_PASS_ENV: "not-a-name" is not a variable name');
  });

  it('reads the shared data plane, empty meaning unset', () => {
    expect(
      loadWorkerConfig({ WHARF_STORE: 'postgres://wharf@db:5432/wharf', WHARF_BLOBS: 's3://wharf/outputs' }),
    ).toMatchObject({ WHARF_STORE: 'postgres://wharf@db:5432/wharf', WHARF_BLOBS: 's3://wharf/outputs' });
    const unset = loadWorkerConfig({ WHARF_STORE: '', WHARF_BLOBS: '' });
    expect(unset.WHARF_STORE).toBeUndefined();
    expect(unset.WHARF_BLOBS).toBeUndefined();
  });

  it('names a malformed store or blobs URL and what is wrong with it, never the password', () => {
    let caught: unknown;
    try {
      loadWorkerConfig({ WHARF_STORE: 'mysql://root:hunter2@db/wharf', WHARF_BLOBS: 's3://Bad_Bucket' });
    } catch (error) {
      caught = error;
    }
    expect(WorkerConfigError.isInstance(caught)).toBe(true);
    const message = (caught as Error).message;
    expect(message).toMatch(/WHARF_STORE: scheme "mysql:" is not supported/);
    expect(message).toMatch(/WHARF_BLOBS: bucket "Bad_Bucket"/);
    expect(message).not.toContain('hunter2');
  });

  it('reads the gc schedule: off by default, ages and sizes with units, no policy without an interval', () => {
    expect(loadWorkerConfig({}).WHARF_GC_INTERVAL).toBeUndefined();
    // Compose passes an unset `${WHARF_GC_INTERVAL:-}` as empty: that is off, not an error.
    expect(
      loadWorkerConfig({
        WHARF_GC_INTERVAL: '',
        WHARF_GC_MAX_AGE: '',
        WHARF_GC_MAX_BYTES: '',
        WHARF_MCP_SERVERS: '',
      }),
    ).toMatchObject({
      WHARF_GC_INTERVAL: undefined,
      WHARF_GC_MAX_AGE: undefined,
      WHARF_GC_MAX_BYTES: undefined,
    });
    expect(
      loadWorkerConfig({ WHARF_GC_INTERVAL: '1h', WHARF_GC_MAX_AGE: '7d', WHARF_GC_MAX_BYTES: '10GiB' }),
    ).toMatchObject({
      WHARF_GC_INTERVAL: 3_600_000,
      WHARF_GC_MAX_AGE: 604_800_000,
      WHARF_GC_MAX_BYTES: 10 * 2 ** 30,
    });
    const messageOf = (env: Record<string, string>) => {
      try {
        loadWorkerConfig(env);
      } catch (error) {
        return (error as Error).message;
      }
      return '';
    };
    expect(messageOf({ WHARF_GC_INTERVAL: 'hourly' })).toContain('WHARF_GC_INTERVAL must be a duration');
    expect(messageOf({ WHARF_GC_MAX_AGE: '7d' })).toContain(
      'WHARF_GC_MAX_AGE: has no effect without WHARF_GC_INTERVAL',
    );
  });

  it('reads the intake limits, leaving unset ones to the intake defaults', () => {
    expect(intakeLimits(loadWorkerConfig({}))).toEqual({});
    const config = loadWorkerConfig({
      WHARF_INTAKE_HEADERS_TIMEOUT_MS: '5000',
      WHARF_INTAKE_REQUEST_TIMEOUT_MS: '300000',
      WHARF_INTAKE_IDLE_TIMEOUT_MS: '20000',
      WHARF_INTAKE_MAX_CONCURRENT_REQUESTS: '64',
      WHARF_INTAKE_MAX_BODY_BYTES: '1048576',
    });
    expect(intakeLimits(config)).toEqual({
      headersTimeoutMs: 5000,
      requestTimeoutMs: 300_000,
      idleTimeoutMs: 20_000,
      maxConcurrentRequests: 64,
      maxBodyBytes: 1_048_576,
    });
  });

  it('refuses a bad intake limit with a typed error naming the variable', () => {
    let caught: unknown;
    try {
      loadWorkerConfig({
        WHARF_INTAKE_MAX_CONCURRENT_REQUESTS: '0',
        WHARF_INTAKE_REQUEST_TIMEOUT_MS: 'soon',
        WHARF_INTAKE_MAX_BODY_BYTES: '1.5',
      });
    } catch (error) {
      caught = error;
    }
    expect(WorkerConfigError.isInstance(caught)).toBe(true);
    expect(caught).toMatchObject({ code: 'INVALID_ENV' });
    expect([...(caught as WorkerConfigError).variables].sort()).toEqual([
      'WHARF_INTAKE_MAX_BODY_BYTES',
      'WHARF_INTAKE_MAX_CONCURRENT_REQUESTS',
      'WHARF_INTAKE_REQUEST_TIMEOUT_MS',
    ]);
    expect((caught as Error).message).toMatch(/WHARF_INTAKE_MAX_CONCURRENT_REQUESTS: /);
  });
});

describe('WHARF_MCP_SERVERS', () => {
  const servers = {
    files: { command: 'node', args: ['files-server.js'], env: { ROOT: '/srv' } },
    docs: { url: 'https://docs.example/mcp', headers: { authorization: 'Bearer t' } },
  };

  it('reads JSON, or a JSON file by its path; empty is unset', async () => {
    expect(loadWorkerConfig({ WHARF_MCP_SERVERS: JSON.stringify(servers) }).WHARF_MCP_SERVERS).toEqual(
      servers,
    );
    const dir = await mkdtemp(join(tmpdir(), 'wharf-mcp-config-'));
    try {
      await writeFile(join(dir, 'mcp.json'), JSON.stringify(servers));
      expect(loadWorkerConfig({ WHARF_MCP_SERVERS: join(dir, 'mcp.json') }).WHARF_MCP_SERVERS).toEqual(
        servers,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    expect(loadWorkerConfig({ WHARF_MCP_SERVERS: '' }).WHARF_MCP_SERVERS).toBeUndefined();
  });

  it.each([
    ['{"files": {"command": "node",', 'WHARF_MCP_SERVERS: is not valid JSON'],
    ['/no/such/mcp.json', 'WHARF_MCP_SERVERS: is neither JSON nor a readable file: ENOENT'],
    ['{"files": {"args": ["x"]}}', 'WHARF_MCP_SERVERS: files: Invalid input'],
    ['{"docs": {"url": "ftp://x/mcp"}}', 'WHARF_MCP_SERVERS: docs.url: Invalid URL'],
    ['{"my tools": {"command": "node"}}', 'WHARF_MCP_SERVERS: my tools: a server name is a word'],
    ['{"files": {"command": "node", "timeout": 5}}', 'WHARF_MCP_SERVERS: files: Unrecognized key: "timeout"'],
    ['["files"]', 'WHARF_MCP_SERVERS: (top level): Invalid input: expected record'],
  ])('refuses %s, naming the variable', (value, message) => {
    let caught: unknown;
    try {
      loadWorkerConfig({ WHARF_MCP_SERVERS: value });
    } catch (error) {
      caught = error;
    }
    expect(WorkerConfigError.isInstance(caught)).toBe(true);
    expect((caught as WorkerConfigError).variables).toEqual(['WHARF_MCP_SERVERS']);
    expect((caught as Error).message).toContain(message);
  });

  it('reads the models a worker runs agents on and its summarizer, empty meaning unset', () => {
    const config = loadWorkerConfig({
      WHARF_MODEL: 'echo, supervisor=anthropic:claude-sonnet-4-5',
      WHARF_SUMMARIZER: '',
    });
    expect(config.WHARF_MODEL).toEqual({
      default: 'echo',
      agents: { supervisor: 'anthropic:claude-sonnet-4-5' },
    });
    expect(config.WHARF_SUMMARIZER).toBeUndefined();
    expect(loadWorkerConfig({ WHARF_MODEL: ' ', WHARF_SUMMARIZER: 'echo' })).toMatchObject({
      WHARF_SUMMARIZER: 'echo',
    });
    expect(loadWorkerConfig({ WHARF_MODEL: ' ' }).WHARF_MODEL).toBeUndefined();
  });

  it.each([
    ['WHARF_MODEL', 'gpt-4o', 'WHARF_MODEL: model id "gpt-4o" names no provider'],
    ['WHARF_MODEL', 'reviewer=gemini:pro', 'WHARF_MODEL: model id "gemini:pro": unknown provider "gemini"'],
    ['WHARF_MODEL', 'echo,scripted:a.yaml', 'WHARF_MODEL: two models for every agent'],
    ['WHARF_SUMMARIZER', 'openai:', 'WHARF_SUMMARIZER: model id "openai:" names no model'],
  ])('refuses %s=%s, naming the variable once', (variable, value, message) => {
    let caught: unknown;
    try {
      loadWorkerConfig({ [variable]: value });
    } catch (error) {
      caught = error;
    }
    expect(WorkerConfigError.isInstance(caught)).toBe(true);
    expect((caught as WorkerConfigError).variables).toEqual([variable]);
    expect((caught as Error).message).toContain(`  ${message}`);
    expect((caught as Error).message).not.toContain(`${variable}: ${variable}`);
  });
});
