import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { parseSwarm } from '@wharf/orchestrator';
import { createModelRegistry } from '@wharf/orchestrator/node';
import { jsonSchema, tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptedModel, toolResultsSent } from './scripted-model.js';
import { createSwarmTestEnv, type SwarmTestEnv } from './swarm-env.js';

/** Every payload's bytes in a workflow's history, as text. */
async function historyPayloadText(env: SwarmTestEnv, workflowId: string): Promise<string> {
  const history = await env.temporal.client.workflow.getHandle(workflowId).fetchHistory();
  const texts: string[] = [];
  const walk = (value: unknown): void => {
    if (value instanceof Uint8Array) {
      texts.push(Buffer.from(value).toString('utf8'));
      return;
    }
    if (typeof value !== 'object' || value === null) return;
    for (const child of Object.values(value)) walk(child);
  };
  walk(history.events);
  return texts.join('\n');
}

describe('an agent that acts through tools, one activity per step', () => {
  let env: SwarmTestEnv;
  let server: Server;
  let url: string;
  beforeAll(async () => {
    env = await createSwarmTestEnv('agent-tools');
    server = createServer((request, response) => {
      response.setHeader('content-type', 'text/plain');
      response.end(`pong ${request.method} ${request.url}`);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/ping`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await env?.close();
  });

  it('runs built-in and worker tools, shows the model cut outputs with markers and refs, and keeps bodies out of history', async () => {
    const workdir = join(env.dir, 'repo');
    await mkdir(workdir, { recursive: true });
    await writeFile(join(env.dir, 'secret.txt'), 'top secret');
    const model = scriptedModel([
      {
        toolCalls: [
          { toolName: 'write_file', input: { path: 'notes/a.txt', content: 'hello' } },
          { toolName: 'shell', input: { command: 'seq 1 100000; echo oops >&2' } },
          { toolName: 'read_file', input: { path: '../secret.txt' } },
          { toolName: 'http_request', input: { url } },
          { toolName: 'lookup', input: { key: 'colour' } },
        ],
      },
      (prompt) => {
        // Read the head of the shell's whole output, which the cut result names.
        const shellResult = JSON.stringify(prompt);
        const outId = /full output: (out_[\w-]+)/.exec(shellResult)?.[1] ?? 'missing';
        return {
          toolCalls: [
            { toolName: 'read_input', input: { out_id: outId, offset: 0, length: 12 } },
            { toolName: 'read_input', input: { out_id: 'out_someone_elses_000' } },
            { toolName: 'emit', input: { body: 'the report body', name: 'report.md' } },
          ],
        };
      },
      { text: 'Report handed in.' },
    ]);
    const lookup = tool({
      description: 'Looks a key up.',
      inputSchema: jsonSchema<{ key: string }>({
        type: 'object',
        properties: { key: { type: 'string' } },
        required: ['key'],
      }),
      execute: async ({ key }) => ({ key, value: 'teal' }),
    });
    const definition = parseSwarm(
      `
name: agent-tools
agents:
  builder: { model: mock:builder, tools: [shell, read_file, write_file, http_request, lookup] }
tasks:
  build: { agent: builder, prompt: Build it. }
`,
      { tools: ['lookup'] },
    );
    const { workflowId } = await env.wharf.startSwarm(definition, {}, { workdir });
    const result = await env.withWorker(() => env.wharf.result(workflowId), {
      models: createModelRegistry({
        models: { 'mock:builder': model },
        env: {},
        prices: { 'mock:builder': { inputPerMillion: 2, outputPerMillion: 8 } },
      }),
      tools: { lookup },
    });

    expect(result.status).toBe('completed');
    expect(model.doStreamCalls).toHaveLength(3);
    const [report] = result.outputs.build ?? [];
    expect(Buffer.from((await env.store.get({ outId: report ?? '' })).body).toString()).toBe(
      'the report body',
    );
    expect(await readFile(join(workdir, 'notes/a.txt'), 'utf8')).toBe('hello');

    // What the model was sent after the first step: bounded text, exact markers, a ref to the rest.
    const sent = toolResultsSent(model.doStreamCalls[1] as never);
    expect(sent.get('call-0-0')).toEqual({ type: 'text', value: 'wrote 5 bytes to notes/a.txt' });
    const shell = String(sent.get('call-0-1')?.value);
    expect(shell.startsWith('exit 0\n--- stdout ---\n')).toBe(true);
    // Cut once, by stdio-limits under the task's limits, with exact counts.
    expect(shell.match(/bytes truncated\] ---/g)).toHaveLength(1);
    expect(shell).toMatch(
      /--- \[\d+ bytes truncated\] ---\n[\s\S]*\n--- Output \(showing last \d+ bytes of 588895\) ---\n/,
    );
    expect(shell).toContain('--- stderr ---\noops');
    expect(Buffer.byteLength(shell)).toBeLessThan(17_000);
    const fullRef = /\[full output: (out_[\w-]+) \((\d+) bytes\); read it with read_input\]/.exec(shell);
    expect(fullRef).not.toBeNull();
    const seq = Array.from({ length: 100_000 }, (_, index) => `${index + 1}\n`).join('');
    const full = Buffer.from((await env.store.get({ outId: fullRef?.[1] ?? '' })).body).toString();
    expect(full).toBe(`${seq}oops\n`);
    expect(Number(fullRef?.[2])).toBe(Buffer.byteLength(full));
    expect(sent.get('call-0-2')?.type).toBe('error-text');
    expect(String(sent.get('call-0-2')?.value)).toContain('outside the work directory');
    expect(String(sent.get('call-0-3')?.value)).toMatch(/^HTTP 200 OK\n[\s\S]*\n\npong GET \/ping$/);
    expect(JSON.parse(String(sent.get('call-0-4')?.value))).toEqual({ key: 'colour', value: 'teal' });

    // The agent may read its own tool outputs whole, a range at a time, and nothing else.
    const second = toolResultsSent(model.doStreamCalls[2] as never);
    expect(second.get('call-1-0')).toEqual({
      type: 'text',
      value: `${fullRef?.[1]} bytes 0-12 of ${Buffer.byteLength(full)}:\n1\n2\n3\n4\n5\n6\n`,
    });
    expect(second.get('call-1-1')).toEqual({
      type: 'text',
      value: 'refused: out_someone_elses_000 is not one of your inputs',
    });

    // Every call is evidence, the shell's whole output included.
    const calls = await env.artifacts.listToolCalls(`${workflowId}:build`);
    expect(calls.map((call) => call.toolName)).toEqual([
      'write_file',
      'shell',
      'read_file',
      'http_request',
      'lookup',
      'read_input',
      'read_input',
      'emit',
    ]);
    expect(calls[1]?.bytes).toBe(Buffer.byteLength(full));

    // Usage per call, summed per task and swarm, priced.
    const usage = { calls: 3, inputTokens: 303, outputTokens: 30, totalTokens: 333, costUsd: 0.000846 };
    expect(result.tasks[0]?.usage).toEqual(usage);
    expect(result.metrics.usage).toEqual(usage);

    // The agent ran as a child workflow of one activity per step; its history holds refs only.
    const child = `${workflowId}/agent/build`;
    const history = await env.temporal.client.workflow.getHandle(child).fetchHistory();
    const types = (history.events ?? []).flatMap((event) =>
      event.activityTaskScheduledEventAttributes?.activityType?.name
        ? [event.activityTaskScheduledEventAttributes.activityType.name]
        : [],
    );
    expect(types.filter((type) => type === 'agentModelStep')).toHaveLength(3);
    expect(types.filter((type) => type === 'agentToolCall')).toHaveLength(8);
    // A 589 kB tool output, three model calls, eight tool calls: a few kB of history.
    const { historySize } = await env.temporal.client.workflow.getHandle(child).describe();
    expect(historySize).toBeLessThan(32_000);
    const payloads = await historyPayloadText(env, child);
    expect(payloads).not.toContain('the report body');
    expect(payloads).not.toContain('99999');
  });

  it("cancelling an agent task cancels its tool call and ends the tool's processes", async () => {
    const workdir = join(env.dir, 'cancel');
    await mkdir(workdir, { recursive: true });
    const pidFile = join(workdir, 'sleeper.pid');
    const model = scriptedModel([
      { toolCalls: [{ toolName: 'shell', input: { command: `sleep 60 & echo $! > ${pidFile}; wait` } }] },
    ]);
    const definition = parseSwarm(`
name: agent-cancel
agents:
  sleeper: { model: mock:sleeper, tools: [shell] }
tasks:
  nap: { agent: sleeper, prompt: Sleep. }
`);
    const { workflowId } = await env.wharf.startSwarm(definition, {}, { workdir });
    const started = Date.now();
    const result = await env.withWorker(
      async () => {
        for (let attempt = 0; attempt < 300 && !existsSync(pidFile); attempt++) {
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        // The swarm's progress shows what the agent's running step reports.
        let live: unknown;
        for (let attempt = 0; attempt < 100 && live === undefined; attempt++) {
          live = (await env.wharf.progress(workflowId)).tasks[0]?.live;
          if (live === undefined) await new Promise((resolve) => setTimeout(resolve, 100));
        }
        expect(live).toEqual([
          expect.objectContaining({ activity: 'agentToolCall', attempt: 1, step: 0, toolCalls: ['shell'] }),
        ]);
        await env.wharf.cancelTask(workflowId, 'nap', 'enough');
        return env.wharf.result(workflowId);
      },
      { models: createModelRegistry({ models: { 'mock:sleeper': model }, env: {} }) },
    );
    expect(Date.now() - started).toBeLessThan(45_000);
    expect(result.tasks[0]).toMatchObject({ status: 'cancelled', reason: 'enough' });
    // The process group was signalled; a killed process may show as a zombie for a moment.
    const pid = Number(await readFile(pidFile, 'utf8'));
    const alive = () => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    for (let attempt = 0; attempt < 100 && alive(); attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(alive()).toBe(false);
    expect(model.doStreamCalls).toHaveLength(1);
  });
});
