import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseSwarm } from '@wharf/orchestrator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSwarmTestEnv, type SwarmTestEnv } from './swarm-env.js';
import { startWorkerProcess } from './worker-process.js';

const workerScript = fileURLToPath(new URL('../fixtures/worker-process.mjs', import.meta.url));

describe('a worker killed while its agent runs a tool', () => {
  let env: SwarmTestEnv;
  beforeAll(async () => {
    env = await createSwarmTestEnv('agent-crash');
  });
  afterAll(async () => {
    await env?.close();
  });

  it('is replaced by a worker that resumes at the tool call: no model call is paid twice', async () => {
    const definition = parseSwarm(`
name: agent-crash
agents:
  worker: { model: mock:crash, tools: [shell] }
tasks:
  report: { agent: worker, prompt: "Do the slow work, then hand in a report." }
`);
    const { workflowId } = await env.wharf.startSwarm(definition, {}, { heartbeatTimeoutMs: 2_000 });
    const first = await startWorkerProcess(env, workerScript, ['counting-agent']);
    // The first model call is done and its tool call runs (a 4 s command): kill the worker outright.
    const toolRuns = join(env.dir, 'tool-runs');
    for (let attempt = 0; attempt < 600 && !existsSync(toolRuns); attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(existsSync(toolRuns)).toBe(true);
    first.kill('SIGKILL');
    await once(first, 'exit');

    const second = await startWorkerProcess(env, workerScript, ['counting-agent']);
    try {
      const result = await env.wharf.result(workflowId);
      expect(result.status).toBe('completed');
      const [report] = result.outputs.report ?? [];
      expect(Buffer.from((await env.store.get({ outId: report ?? '' })).body).toString()).toBe(
        'crash report',
      );

      // Three steps, three model calls: the first was made by the killed worker, the rest by
      // its successor, and the first was never made again.
      const calls = (await readFile(join(env.dir, 'model-calls.log'), 'utf8')).trim().split('\n');
      expect(calls.map((line) => line.split(' pid ')[0])).toEqual(['step 0', 'step 1', 'step 2']);
      expect(calls[0]).toContain(`pid ${first.pid}`);
      expect(calls[1]).toContain(`pid ${second.pid}`);
      expect(result.tasks[0]?.usage).toMatchObject({ calls: 3, inputTokens: 300, outputTokens: 30 });
      // The tool call in flight when the worker died ran again on its successor (at least once).
      expect((await readFile(toolRuns, 'utf8')).trim().split('\n')).toHaveLength(2);
    } finally {
      second.kill('SIGTERM');
      await once(second, 'exit');
    }
  });
});
