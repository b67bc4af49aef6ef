import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { InMemoryArtifactStore } from '@wharf/evidence';
import { InMemoryOutputStore } from '@wharf/output-store';
import { StdioLimitsError } from '@wharf/stdio-limits';
import type { AgentTaskInput } from '@wharf/swarm';
import { validateSwarm } from '@wharf/swarm';
import { jsonSchema, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createModelRegistry } from '../models/model-registry.js';
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

  it('fails a tool call whose command was lost with its spawn helper for a retry, instead of telling the model it failed', async () => {
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
    // As the shell tool's capture fails when the helper that started its command dies.
    const count = tool({
      description: 'Loses its first call.',
      inputSchema: jsonSchema<Record<string, never>>({ type: 'object', properties: {} }),
      execute: async () => {
        if (++executed === 1)
          throw new StdioLimitsError('SPAWN_HELPER_DIED', 'the spawn server exited (SIGKILL)');
        return `call ${executed}`;
      },
    });
    const activities = createActivities({
      store: new InMemoryOutputStore(),
      artifacts: new InMemoryArtifactStore(),
      models: createModelRegistry({ models: { 'mock:coder': model }, env: {} }),
      tools: { count },
      workDir: join(dir, 'work'),
    });
    const run = <TInput, TResult>(attempt: number, fn: (input: TInput) => Promise<TResult>, input: TInput) =>
      new MockActivityEnvironment({ ...identity, attempt }).run(fn, input) as Promise<TResult>;
    const start = await run(1, activities.agentStart, taskInput(['count']));
    const first = await run(1, activities.agentModelStep, {
      brief: start.brief,
      conversation: start.conversation,
      step: 0,
    });
    const callInput = { brief: start.brief, step: 0, record: first.record, toolCallId: 'c1', seq: 1 };
    const failure = await run(1, activities.agentToolCall, callInput).catch((caught: unknown) => caught);
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ type: 'WharfSpawnHelperDied', nonRetryable: false });
    const retried = await run(2, activities.agentToolCall, callInput);
    expect(retried.failed).toBe(false);
    expect(executed).toBe(2);
  });

  it("names a loop its context shows only some outputs of, and may read the loop's manifest and what it lists", async () => {
    const store = new InMemoryOutputStore();
    // Set below, once stored: the model reads the loop's manifest, then its chunk.
    const read = { manifest: '', chunk: '' };
    const model = new MockLanguageModelV4({
      doGenerate: async () => ({
        content: [
          {
            type: 'tool-call',
            toolCallId: 'c1',
            toolName: 'read_input',
            input: JSON.stringify({ out_id: read.manifest }),
          },
          {
            type: 'tool-call',
            toolCallId: 'c2',
            toolName: 'read_input',
            input: JSON.stringify({ out_id: read.chunk }),
          },
        ],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage: {
          inputTokens: { total: 40, noCache: 40, cacheRead: 0, cacheWrite: 0 },
          outputTokens: { total: 4, text: 4, reasoning: 0 },
        },
        warnings: [],
      }),
    });
    const activities = createActivities({
      store,
      artifacts: new InMemoryArtifactStore(),
      models: createModelRegistry({ models: { 'mock:coder': model }, env: {} }),
      workDir: join(dir, 'work'),
    });
    const part = { workflowId: 'wf-1', ownerId: 'team', task: 'fan' };
    const entries = [0, 1, 2].map((instance) => ({
      instance,
      status: 'ok' as const,
      outIds: [`out_fan${instance}`],
      bytes: 20,
      exitCode: 0,
      preview: '',
    }));
    read.chunk = await activities.writeManifestPart({ ...part, part: 'chunk', seq: 0, entries });
    read.manifest = await activities.writeManifestPart({
      ...part,
      part: 'manifest',
      chunks: [{ outId: read.chunk, count: 3 }],
    });
    const input: AgentTaskInput = {
      ...taskInput([]),
      context: {
        entries: [],
        maxBytes: 10_000,
        maxTasks: 10,
        loops: [{ task: 'fan', shown: 0, total: 3, manifest: read.manifest }],
      },
    };
    const run = <TInput, TResult>(fn: (input: TInput) => Promise<TResult>, arg: TInput) =>
      new MockActivityEnvironment({ ...identity, attempt: 1 }).run(fn, arg) as Promise<TResult>;
    const start = await run(activities.agentStart, input);
    const step = await run(activities.agentModelStep, {
      brief: start.brief,
      conversation: start.conversation,
      step: 0,
    });
    // The model was told where all of the loop's outputs are.
    expect(JSON.stringify(model.doGenerateCalls[0]?.prompt)).toContain(
      `Loop fan: 0 of 3 outputs shown; all 3 are listed in manifest ${read.manifest}`,
    );
    const answers = [];
    for (const [seq, toolCallId] of ['c1', 'c2'].entries()) {
      const call = await run(activities.agentToolCall, {
        brief: start.brief,
        step: 0,
        record: step.record,
        toolCallId,
        seq: seq + 1,
      });
      const record = JSON.parse(Buffer.from((await store.get({ outId: call.record })).body).toString());
      answers.push(String(record.messages[0].content[0].output.value));
    }
    // Not refused: the manifest names its chunk, the chunk lists every instance's out ids.
    expect(answers[0]).toContain(read.chunk);
    expect(answers[1]).toContain('out_fan2');
    expect(answers.join('\n')).not.toContain('refused');
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
