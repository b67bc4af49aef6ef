import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { InMemoryArtifactStore } from '@wharf/evidence';
import { InMemoryOutputStore } from '@wharf/output-store';
import { jsonSchema, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { validateSwarm } from '../dsl/parse-swarm.js';
import { createModelRegistry } from '../models/model-registry.js';
import type { AgentTaskInput } from '../shared/types.js';
import { createActivities } from '../worker/create-activities.js';

const identity = {
  activityId: '1',
  activityType: 'agentModelStep',
  workflowExecution: { workflowId: 'wf-1/agent/build', runId: 'run-a' },
};

function taskInput(tools: string[]): AgentTaskInput {
  const definition = validateSwarm(
    {
      name: 's',
      agents: { coder: { model: 'mock:coder', tools } },
      tasks: { build: { agent: 'coder', prompt: 'Count.' } },
    },
    { tools: ['count'] },
  );
  return {
    swarm: 's',
    ownerId: 'team',
    workflowId: 'wf-1',
    task: 'build',
    instance: 0,
    definition: definition.tasks.build as AgentTaskInput['definition'],
    agent: definition.agents.coder as NonNullable<AgentTaskInput['agent']>,
    inputs: {},
    inRefs: [],
  };
}

describe('agent step activities', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wharf-agent-steps-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('a retried model step or tool call returns what the first attempt stored, without paying again', async () => {
    const model = new MockLanguageModelV4({
      doGenerate: async () => ({
        content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'count', input: '{}' }],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage: {
          inputTokens: { total: 40, noCache: 40, cacheRead: 0, cacheWrite: 0 },
          outputTokens: { total: 4, text: 4, reasoning: 0 },
        },
        warnings: [],
      }),
    });
    let executed = 0;
    const count = tool({
      description: 'Counts its calls.',
      inputSchema: jsonSchema<Record<string, never>>({ type: 'object', properties: {} }),
      execute: async () => `call ${++executed}`,
    });
    const store = new InMemoryOutputStore();
    const activities = createActivities({
      store,
      artifacts: new InMemoryArtifactStore(),
      models: createModelRegistry({ models: { 'mock:coder': model }, env: {} }),
      tools: { count },
      workDir: join(dir, 'work'),
    });
    const run = <TInput, TResult>(attempt: number, fn: (input: TInput) => Promise<TResult>, input: TInput) =>
      new MockActivityEnvironment({ ...identity, attempt }).run(fn, input) as Promise<TResult>;

    const start = await run(1, activities.agentStart, taskInput(['count']));
    expect(await run(2, activities.agentStart, taskInput(['count']))).toEqual(start);
    const stepInput = { brief: start.brief, conversation: start.conversation, step: 0 };
    const first = await run(1, activities.agentModelStep, stepInput);
    expect(first).toMatchObject({
      toolCalls: [{ toolCallId: 'c1', toolName: 'count' }],
      usage: { calls: 1, inputTokens: 40, outputTokens: 4, totalTokens: 44 },
    });
    // The model was sent the prompt as the task wrote it, and the tools without their code.
    const sent = model.doGenerateCalls[0];
    expect(JSON.stringify(sent?.prompt)).toContain('Count.');
    expect(sent?.tools?.map((offered) => offered.name).sort()).toEqual([
      'count',
      'emit',
      'get_tool_output',
      'get_worker_evidence',
      'read_input',
    ]);
    expect(await run(2, activities.agentModelStep, stepInput)).toEqual(first);
    expect(model.doGenerateCalls).toHaveLength(1);

    const callInput = { brief: start.brief, step: 0, record: first.record, toolCallId: 'c1', seq: 1 };
    const tool1 = await run(1, activities.agentToolCall, callInput);
    expect(await run(2, activities.agentToolCall, callInput)).toEqual(tool1);
    expect(executed).toBe(1);
    const record = JSON.parse(Buffer.from((await store.get({ outId: tool1.record })).body).toString());
    expect(record.messages[0].content[0]).toMatchObject({ output: { type: 'text', value: 'call 1' } });
  });

  it('refuses an agent whose tools this worker does not have, for good', async () => {
    const activities = createActivities({
      store: new InMemoryOutputStore(),
      artifacts: new InMemoryArtifactStore(),
      models: createModelRegistry({ models: { 'mock:coder': new MockLanguageModelV4() }, env: {} }),
      workDir: join(dir, 'work'),
    });
    const error = await new MockActivityEnvironment({ ...identity, attempt: 1 })
      .run(activities.agentStart, taskInput(['count']))
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApplicationFailure);
    expect(error).toMatchObject({ type: 'WharfInvalidDefinition', nonRetryable: true });
    expect((error as Error).message).toContain('unknown tool "count"');
  });
});
