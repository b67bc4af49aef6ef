import { parseSwarm } from '@wharf/orchestrator';
import { createModelRegistry } from '@wharf/orchestrator/node';
import { MockLanguageModelV4 } from 'ai/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSwarmTestEnv, type SwarmTestEnv } from './swarm-env.js';

/** A model that takes `delayMs` to answer, longer than the heartbeat timeout under test. */
function slowModel(delayMs: number, text: string): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    doGenerate: async () => {
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      return {
        content: [{ type: 'text', text }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: {
          inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
          outputTokens: { total: 5, text: 5, reasoning: 0 },
        },
        warnings: [],
      };
    },
  });
}

describe('agents whose model call outlasts the heartbeat timeout', () => {
  let env: SwarmTestEnv;
  beforeAll(async () => {
    env = await createSwarmTestEnv('agent-timeouts');
  });
  afterAll(async () => {
    await env?.close();
  });

  it('heartbeat while the model is awaited: each call happens once, on the first attempt', async () => {
    const worker = slowModel(5_000, 'findings: all green');
    const boss = slowModel(5_000, 'All green.');
    const definition = parseSwarm(`
name: slow-models
agents:
  analyst: { model: mock:analyst, timeouts: { heartbeat: 2s, start_to_close: 2 minutes } }
  boss: { model: mock:boss, timeouts: { heartbeat: 2s } }
tasks:
  review: { agent: analyst, prompt: Review the repository. }
supervisor: { agent: boss, question: Is everything fine? }
`);
    expect(definition.agents.analyst?.timeouts).toEqual({ heartbeat: 2_000, start_to_close: 120_000 });
    const { workflowId } = await env.wharf.startSwarm(definition);
    const result = await env.withWorker(() => env.wharf.result(workflowId), {
      models: createModelRegistry({ models: { 'mock:analyst': worker, 'mock:boss': boss }, env: {} }),
    });
    expect(result.status).toBe('completed');
    expect(result.supervisor?.answer).toBe('All green.');
    expect(worker.doGenerateCalls).toHaveLength(1);
    expect(boss.doGenerateCalls).toHaveLength(1);

    // The agent's timeouts reached Temporal: every step of the agent task and of the supervisor
    // (each its own child workflow) was scheduled with a 2 s heartbeat.
    const scheduledIn = async (id: string) => {
      const history = await env.temporal.client.workflow.getHandle(id).fetchHistory();
      return {
        scheduled: (history.events ?? []).flatMap((event) =>
          event.activityTaskScheduledEventAttributes ? [event.activityTaskScheduledEventAttributes] : [],
        ),
        started: (history.events ?? []).filter((event) => event.activityTaskStartedEventAttributes),
      };
    };
    const supervisor = await scheduledIn(`${workflowId}/supervisor`);
    const agent = await scheduledIn(`${workflowId}/agent/review`);
    for (const steps of [agent, supervisor]) {
      expect(steps.scheduled.map((attributes) => attributes.activityType?.name)).toEqual([
        'agentStart',
        'agentModelStep',
        'agentFinish',
      ]);
      for (const attributes of steps.scheduled) expect(Number(attributes.heartbeatTimeout?.seconds)).toBe(2);
    }
    const started = [...supervisor.started, ...agent.started];
    expect(started.every((event) => event.activityTaskStartedEventAttributes?.attempt === 1)).toBe(true);
  }, 90_000);
});
