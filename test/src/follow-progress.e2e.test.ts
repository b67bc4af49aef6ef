import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TaskProgress } from '@wharf/orchestrator';
import { createModelRegistry } from '@wharf/orchestrator/node';
import { MockLanguageModelV4 } from 'ai/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSwarmTestEnv, type SwarmTestEnv } from './swarm-env.js';

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};

describe('live progress of running agents (wharf run --follow)', () => {
  let env: SwarmTestEnv;
  beforeAll(async () => {
    env = await createSwarmTestEnv('follow-progress');
  });
  afterAll(async () => {
    await env?.close();
  });

  it("reports each running agent's step and tool calls from its heartbeats", async () => {
    // The model's second call waits until the test has seen the first step reported.
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let calls = 0;
    const model = new MockLanguageModelV4({
      doGenerate: async () => {
        calls += 1;
        if (calls === 1) {
          return {
            content: [
              {
                type: 'tool-call',
                toolCallId: 'c1',
                toolName: 'emit',
                input: JSON.stringify({ body: '# Findings\nall green\n', name: 'findings.md' }),
              },
            ],
            finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
            usage,
            warnings: [],
          };
        }
        await released;
        return {
          content: [{ type: 'text', text: 'Reported.' }],
          finishReason: { unified: 'stop', raw: 'stop' },
          usage,
          warnings: [],
        };
      },
    });
    const { workflowId } = await env.wharf.startSwarm(`
name: followed
agents:
  analyst: { model: mock:analyst, timeouts: { heartbeat: 2s } }
tasks:
  review: { agent: analyst, prompt: Review the repository., inject_context: false }
`);
    const result = await env.withWorker(
      async () => {
        let review: TaskProgress | undefined;
        while (review?.live?.[0]?.step === undefined || review.live[0].step < 1) {
          await new Promise((resolve) => setTimeout(resolve, 250));
          const progress = await env.wharf.progress(workflowId).catch(() => undefined);
          review = progress?.tasks.find((task) => task.task === 'review');
        }
        expect(review.status).toBe('running');
        expect(review.live).toEqual([
          // An agent task runs one activity per step: here its second model call.
          expect.objectContaining({ activity: 'agentModelStep', attempt: 1, step: 1, toolCalls: ['emit'] }),
        ]);
        // A task without a loop is one subagent: no instance number.
        expect(review.live?.[0]?.instance).toBeUndefined();
        release();
        return env.wharf.result(workflowId);
      },
      { models: createModelRegistry({ models: { 'mock:analyst': model }, env: {} }) },
    );
    expect(result.status).toBe('completed');
    expect(calls).toBe(2);
    // A finished task reports no live instances.
    expect(result.tasks[0]?.live).toBeUndefined();
  }, 90_000);

  it("counts a map's finished instances while its one step still runs, before the step folds", async () => {
    const flag = join(await mkdtemp(join(tmpdir(), 'wharf-live-map-')), 'go');
    // Items 0–3 finish at once; 4–5 wait for the flag, so the step (and its fold) waits too.
    const { workflowId } = await env.wharf.startSwarm(`
name: live-map
tasks:
  list: { script: { content: 'seq 0 5' }, output: †data.list }
  fan:
    depends_on: [list]
    loop: { type: map, over: †data.list }
    script: { content: 'if [ "$WHARF_INSTANCE" -ge 4 ]; then while [ ! -e ${flag} ]; do sleep 0.1; done; fi; echo "$WHARF_INSTANCE"' }
`);
    const result = await env.withWorker(async () => {
      let fan: TaskProgress | undefined;
      for (let read = 0; read < 200 && (fan?.instances.done ?? 0) < 4; read++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        fan = (await env.wharf.progress(workflowId).catch(() => undefined))?.tasks.find(
          (task) => task.task === 'fan',
        );
      }
      expect(fan?.status).toBe('running');
      expect(fan?.instances).toEqual({ done: 4, total: 6 });
      await writeFile(flag, '');
      return env.wharf.result(workflowId);
    });
    expect(result.status).toBe('completed');
    expect(result.tasks.find((task) => task.task === 'fan')?.instances).toEqual({ done: 6, total: 6 });
  }, 90_000);
});
