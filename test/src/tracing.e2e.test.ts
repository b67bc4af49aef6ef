import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { FsArtifactStore } from '@wharf/evidence';
import { WharfClient } from '@wharf/orchestrator/client';
import { createModelRegistry } from '@wharf/orchestrator/node';
import { createWharfTracing } from '@wharf/orchestrator/tracing';
import { wharfPlugin } from '@wharf/orchestrator/worker';
import { SqliteOutputStore } from '@wharf/output-store';
import { jsonSchema, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { isolatedEnv } from './isolated-env.js';
import { runWharf } from './wharf-cli.js';

type Call = Parameters<MockLanguageModelV4['doGenerate']>[0];

/** A model that looks something up once, then answers. */
function lookingUpModel(): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    doGenerate: async (options: Call) => {
      const answered = options.prompt.some((message) => message.role === 'tool');
      return {
        content: answered
          ? [{ type: 'text', text: 'The answer is 42.' }]
          : [{ type: 'tool-call', toolCallId: 'call-1', toolName: 'lookup', input: '{"key":"answer"}' }],
        finishReason: { unified: answered ? 'stop' : 'tool-calls', raw: undefined },
        usage: {
          inputTokens: { total: 12, noCache: 12, cacheRead: 0, cacheWrite: 0 },
          outputTokens: { total: 3, text: 3, reasoning: 0 },
        },
        warnings: [],
      };
    },
  });
}

describe('OpenTelemetry traces of a swarm', () => {
  let dir: string;
  let store: SqliteOutputStore;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wharf-tracing-'));
    store = new SqliteOutputStore({ path: join(dir, 'outputs.db') });
    try {
      Runtime.install({ logger: new DefaultLogger('WARN') });
    } catch {
      // installed already
    }
  });
  afterAll(async () => {
    store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('go from the swarm workflow through the agent activities to each model call and tool call', async () => {
    const exporter = new InMemorySpanExporter();
    const tracing = await createWharfTracing({
      spanProcessors: [new SimpleSpanProcessor(exporter)],
      serviceName: 'wharf-tracing-test',
    });
    const lookups: string[] = [];
    let spans: ReadableSpan[] = [];
    const plugin = wharfPlugin({
      store,
      artifacts: new FsArtifactStore({ root: join(dir, 'artifacts') }),
      workDir: join(dir, 'work'),
      models: createModelRegistry({ models: { 'mock:looker': lookingUpModel() }, env: {} }),
      tools: {
        lookup: tool({
          description: 'Looks a key up.',
          inputSchema: jsonSchema<{ key: string }>({
            type: 'object',
            properties: { key: { type: 'string' } },
          }),
          execute: async ({ key }) => {
            lookups.push(key);
            return `${key} = 42`;
          },
        }),
      },
      tracing,
    });
    const taskQueue = `tracing-${process.pid}`;
    const nativeConnection = await NativeConnection.connect({ address: inject('temporalAddress') });
    const connection = await Connection.connect({ address: inject('temporalAddress') });
    try {
      const worker = await Worker.create({ connection: nativeConnection, taskQueue, plugins: [plugin] });
      const wharf = new WharfClient({ client: new Client({ connection, plugins: [plugin] }), taskQueue });
      const { workflowId } = await wharf.startSwarm(
        'name: traced\nagents:\n  looker: { model: "mock:looker", tools: [lookup] }\ntasks:\n  ask: { agent: looker, prompt: What is the answer? }\n',
        {},
        { workflowId: `traced-${Date.now()}` },
      );
      // Until the worker has stopped, so that the workflow spans have left the sandbox.
      const result = await worker.runUntil(wharf.result(workflowId));
      expect(result.status).toBe('completed');
      expect(lookups).toEqual(['answer']);
      // (Read before shutting down: the in-memory exporter forgets its spans then.)
      spans = exporter.getFinishedSpans();
    } finally {
      await connection.close();
      await nativeConnection.close();
      await tracing.shutdown();
    }

    const byId = new Map(spans.map((span) => [span.spanContext().spanId, span]));
    /** The names from a span up to its root. */
    const ancestry = (span: ReadableSpan): string[] => {
      const names: string[] = [];
      for (let current: ReadableSpan | undefined = span; current !== undefined; ) {
        names.push(current.name);
        current = current.parentSpanId === undefined ? undefined : byId.get(current.parentSpanId);
      }
      return names;
    };
    const names = spans.map((span) => span.name);
    const modelCalls = spans.filter((span) => span.attributes['gen_ai.operation.name'] === 'chat');
    const toolCalls = spans.filter((span) => span.name === 'execute_tool lookup');
    expect(modelCalls, names.join('\n')).toHaveLength(2);
    expect(toolCalls, names.join('\n')).toHaveLength(1);

    // One trace, rooted at the client's start of the swarm.
    expect(new Set(spans.map((span) => span.spanContext().traceId)).size).toBe(1);
    const swarmRun = 'RunWorkflow:swarmWorkflow';
    for (const call of modelCalls) {
      const chain = ancestry(call);
      // model call → (AI SDK's agent span) → the step's activity → … → the agent workflow → the swarm workflow
      expect(chain).toContain('RunActivity:agentModelStep');
      expect(chain.indexOf('RunActivity:agentModelStep')).toBeLessThan(
        chain.indexOf('RunWorkflow:agentTaskWorkflow'),
      );
      expect(chain.indexOf('RunWorkflow:agentTaskWorkflow')).toBeLessThan(chain.indexOf(swarmRun));
      expect(chain.at(-1)).toBe('StartWorkflow:swarmWorkflow');
      expect(call.resource.attributes['service.name']).toBe('wharf-tracing-test');
    }
    const [toolCall] = toolCalls as [ReadableSpan];
    expect(toolCall.attributes).toMatchObject({
      'gen_ai.tool.name': 'lookup',
      'gen_ai.tool.call.id': 'call-1',
    });
    const toolChain = ancestry(toolCall);
    expect(toolChain[1]).toBe('RunActivity:agentToolCall');
    expect(toolChain).toEqual(expect.arrayContaining(['RunWorkflow:agentTaskWorkflow', swarmRun]));
    expect(toolChain.at(-1)).toBe('StartWorkflow:swarmWorkflow');
    // Content is not recorded unless OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT says so.
    expect(JSON.stringify(modelCalls.map((span) => span.attributes))).not.toContain('What is the answer?');
  });
});

/** An OTLP/HTTP collector that keeps the bodies posted to `/v1/traces`. */
async function startCollector(): Promise<{
  url: string;
  posts: { type: string; body: Buffer }[];
  stop(): Promise<void>;
}> {
  const posts: { type: string; body: Buffer }[] = [];
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    if (request.method === 'POST' && request.url === '/v1/traces') {
      posts.push({ type: String(request.headers['content-type']), body: Buffer.concat(chunks) });
    }
    response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    posts,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('tracing from the standard OTEL_* variables', () => {
  const workerMain = fileURLToPath(new URL('../../apps/worker/dist/main.js', import.meta.url));
  let dir: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wharf-otlp-'));
    await writeFile(
      join(dir, 'swarm.yaml'),
      'name: exported\ntasks:\n  hello: { script: { content: echo hello } }\n',
    );
    env = { ...isolatedEnv(dir), TEMPORAL_ADDRESS: inject('temporalAddress') };
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('are off by default, and exported over OTLP/HTTP by the CLI and the worker when an endpoint is set', async () => {
    const collector = await startCollector();
    let worker: ChildProcess | undefined;
    try {
      // Nothing set: nothing exported.
      const quiet = await runWharf(['run', 'swarm.yaml', '--data-dir', join(dir, 'quiet')], dir, {
        timeoutMs: 180_000,
        env,
      });
      expect(quiet.code, quiet.stderr).toBe(0);
      expect(collector.posts).toEqual([]);

      const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_SERVICE_NAME: 'wharf-otlp-test' };
      const run = await runWharf(['run', 'swarm.yaml', '--data-dir', join(dir, 'cli')], dir, {
        timeoutMs: 180_000,
        env: {
          ...env,
          ...otel,
        },
      });
      expect(run.code, run.stderr).toBe(0);
      // Spans are written as protobuf: their names and the service name are there as text.
      const exported = () => Buffer.concat(collector.posts.map((post) => post.body)).toString('latin1');
      expect(collector.posts.every((post) => post.type === 'application/x-protobuf')).toBe(true);
      for (const name of [
        'StartWorkflow:swarmWorkflow',
        'RunWorkflow:swarmWorkflow',
        'RunActivity:runSubagent',
        'wharf-otlp-test',
      ]) {
        expect(exported()).toContain(name);
      }

      // The worker app: its start line says so, and it exports what it ran when it stops.
      const before = collector.posts.length;
      const taskQueue = `otlp-worker-${process.pid}`;
      worker = spawn(process.execPath, [workerMain], {
        env: { ...env, ...otel, WHARF_TASK_QUEUE: taskQueue, WHARF_DATA_DIR: join(dir, 'worker') },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let log = '';
      for await (const chunk of worker.stdout ?? []) {
        log += String(chunk);
        if (log.includes('"worker-start"')) break;
      }
      worker.stdout?.resume();
      expect(log).toContain('"tracing":"otlp"');
      const connection = await Connection.connect({ address: inject('temporalAddress') });
      try {
        const wharf = new WharfClient({ connection, taskQueue });
        const { workflowId } = await wharf.startSwarm(
          'name: from-worker\ntasks:\n  hi: { script: { content: echo hi } }\n',
        );
        expect(await wharf.result(workflowId)).toMatchObject({ status: 'completed' });
      } finally {
        await connection.close();
      }
      worker.kill('SIGTERM');
      await once(worker, 'exit');
      const fromWorker = Buffer.concat(collector.posts.slice(before).map((post) => post.body)).toString(
        'latin1',
      );
      expect(fromWorker).toContain('RunWorkflow:swarmWorkflow');
      expect(fromWorker).toContain('RunActivity:runSubagent');
    } finally {
      if (worker !== undefined && worker.exitCode === null && worker.signalCode === null)
        worker.kill('SIGKILL');
      await collector.stop();
    }
  });
});
