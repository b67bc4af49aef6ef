import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { parseSwarm } from '@wharf/orchestrator';
import { createModelRegistry } from '@wharf/orchestrator/node';
import { connectMcpServers, type McpTools } from '@wharf/orchestrator/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptedModel, toolResultsSent } from './scripted-model.js';
import { createSwarmTestEnv, type SwarmTestEnv } from './swarm-env.js';

const serverScript = fileURLToPath(new URL('../fixtures/mcp-server.mjs', import.meta.url));

describe('an agent using the tools of MCP servers (stdio and HTTP)', () => {
  let env: SwarmTestEnv;
  let httpServer: ChildProcess;
  let mcp: McpTools;
  beforeAll(async () => {
    env = await createSwarmTestEnv('agent-mcp');
    httpServer = spawn(process.execPath, [serverScript, 'http'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    for await (const chunk of httpServer.stdout ?? []) {
      output += String(chunk);
      if (/mcp-http \d+/.test(output)) break;
    }
    const port = /mcp-http (\d+)/.exec(output)?.[1];
    mcp = await connectMcpServers({
      local: { command: process.execPath, args: [serverScript, 'stdio'] },
      remote: { url: `http://127.0.0.1:${port}/mcp` },
    });
  });
  afterAll(async () => {
    await mcp?.close();
    httpServer?.kill('SIGTERM');
    if (httpServer !== undefined && httpServer.exitCode === null) await once(httpServer, 'exit');
    await env?.close();
  });

  it('calls them as activities; the model sees their text and their errors', async () => {
    expect(Object.keys(mcp.tools).sort()).toEqual([
      'local_fail',
      'local_shout',
      'remote_fail',
      'remote_shout',
    ]);
    const model = scriptedModel([
      {
        toolCalls: [
          { toolName: 'local_shout', input: { text: 'hello' } },
          { toolName: 'remote_shout', input: { text: 'world' } },
          { toolName: 'local_fail', input: {} },
        ],
      },
      { text: 'Shouted.' },
    ]);
    const definition = parseSwarm(
      `
name: agent-mcp
agents:
  caller: { model: mock:caller, tools: [local_shout, remote_shout, local_fail] }
tasks:
  call: { agent: caller, prompt: Shout. }
`,
      { tools: Object.keys(mcp.tools) },
    );
    const { workflowId } = await env.wharf.startSwarm(definition);
    const result = await env.withWorker(() => env.wharf.result(workflowId), {
      models: createModelRegistry({ models: { 'mock:caller': model }, env: {} }),
      tools: mcp.tools,
    });
    expect(result.status).toBe('completed');
    const sent = toolResultsSent(model.doStreamCalls[1] as never);
    expect(sent.get('call-0-0')).toEqual({ type: 'text', value: 'stdio: HELLO' });
    expect(sent.get('call-0-1')).toEqual({ type: 'text', value: 'http: WORLD' });
    expect(sent.get('call-0-2')).toEqual({ type: 'error-text', value: 'it broke' });
    const calls = await env.artifacts.listToolCalls(`${workflowId}:call`);
    expect(calls.map((call) => [call.toolName, call.exitCode])).toEqual([
      ['local_shout', 0],
      ['remote_shout', 0],
      ['local_fail', 1],
    ]);
  });
});
