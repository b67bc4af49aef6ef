import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Connection } from '@temporalio/client';
import { parseSwarm } from '@wharf/orchestrator';
import { WharfClient } from '@wharf/orchestrator/client';
import { createModelRegistry } from '@wharf/orchestrator/node';
import { MockLanguageModelV4 } from 'ai/test';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadWorkerConfig } from './config.js';
import { startWorker } from './start-worker.js';
import { WorkerConfigError } from './worker-config-error.js';

/** The tiny MCP server the agent tests use (shout, fail). */
const serverScript = fileURLToPath(new URL('../../../test/fixtures/mcp-server.mjs', import.meta.url));

/** Command lines of this process's children. */
function children(): string[] {
  try {
    return execFileSync('ps', ['-o', 'args=', '--ppid', String(process.pid)], { encoding: 'utf8' })
      .split('\n')
      .filter((line) => line.trim() !== '');
  } catch {
    return []; // ps exits 1 when there are none
  }
}

type Call = Parameters<MockLanguageModelV4['doGenerate']>[0];

describe('startWorker with WHARF_MCP_SERVERS', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wharf-worker-mcp-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('connects the servers at start, gives agents their tools, and closes them at shutdown', async () => {
    const taskQueue = `worker-mcp-${process.pid}`;
    const model = new MockLanguageModelV4({
      doGenerate: async (options: Call) => {
        const answered = options.prompt.some((message) => message.role === 'tool');
        return {
          content: answered
            ? [{ type: 'text', text: 'Shouted.' }]
            : [{ type: 'tool-call', toolCallId: 'c1', toolName: 'local_shout', input: '{"text":"ahoy"}' }],
          finishReason: { unified: answered ? 'stop' : 'tool-calls', raw: undefined },
          usage: {
            inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
            outputTokens: { total: 2, text: 2, reasoning: 0 },
          },
          warnings: [],
        };
      },
    });
    const worker = await startWorker(
      loadWorkerConfig({
        TEMPORAL_ADDRESS: inject('temporalAddress'),
        WHARF_DATA_DIR: join(dir, 'data'),
        WHARF_TASK_QUEUE: taskQueue,
        WHARF_MCP_SERVERS: JSON.stringify({
          local: { command: process.execPath, args: [serverScript, 'stdio'] },
        }),
      }),
      pino({ level: 'silent' }),
      { models: createModelRegistry({ models: { 'mock:shouter': model }, env: {} }) },
    );
    try {
      expect(children().filter((line) => line.includes('mcp-server.mjs stdio'))).toHaveLength(1);
      const connection = await Connection.connect({ address: inject('temporalAddress') });
      try {
        const wharf = new WharfClient({ connection, taskQueue });
        const definition = parseSwarm(
          'name: worker-mcp\nagents:\n  a: { model: mock:shouter, tools: [local_shout] }\ntasks:\n  t: { agent: a, prompt: Shout. }\n',
          { tools: ['local_shout', 'local_fail'] },
        );
        const { workflowId } = await wharf.startSwarm(definition);
        const result = await wharf.result(workflowId);
        expect(result.status).toBe('completed');
        const sent = model.doGenerateCalls[1]?.prompt.find((message) => message.role === 'tool');
        expect(JSON.stringify(sent?.content)).toContain('stdio: AHOY');
        expect((model.doGenerateCalls[0]?.tools ?? []).map((entry) => entry.name)).toContain('local_shout');
      } finally {
        await connection.close();
      }
    } finally {
      await worker.stop();
    }
    expect(children().filter((line) => line.includes('mcp-server.mjs stdio'))).toEqual([]);
  });

  it('names the variable and the server when one cannot be started', async () => {
    const config = loadWorkerConfig({
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      WHARF_DATA_DIR: join(dir, 'broken'),
      WHARF_TASK_QUEUE: `worker-mcp-broken-${process.pid}`,
      WHARF_MCP_SERVERS: JSON.stringify({
        local: { command: process.execPath, args: [serverScript, 'stdio'] },
        ghost: { command: join(dir, 'no-such-server') },
      }),
    });
    const failed = await startWorker(config, pino({ level: 'silent' })).catch((error: unknown) => error);
    expect(WorkerConfigError.isInstance(failed)).toBe(true);
    expect((failed as WorkerConfigError).code).toBe('MCP_UNAVAILABLE');
    expect((failed as WorkerConfigError).variables).toEqual(['WHARF_MCP_SERVERS']);
    expect((failed as Error).message).toContain('WHARF_MCP_SERVERS: MCP server "ghost"');
    // The server that did start is closed again.
    expect(children().filter((line) => line.includes('mcp-server.mjs stdio'))).toEqual([]);
  });
});
