import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { MockActivityEnvironment } from '@temporalio/testing';
import { InMemoryArtifactStore } from '@wharf/evidence';
import { readStream, SqliteOutputStore, StreamNotFoundError, tailStream } from '@wharf/output-store';
import type { AgentModelStepResult, AgentStartResult, AgentTaskInput, SubagentHeartbeat } from '@wharf/swarm';
import { validateSwarm } from '@wharf/swarm';
import { MockLanguageModelV4 } from 'ai/test';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createModelRegistry } from '../models/model-registry.js';
import { createActivities } from '../worker/create-activities.js';

const identity = {
  activityId: '1',
  activityType: 'agentModelStep',
  workflowExecution: { workflowId: 'wf-s/agent/write', runId: 'run-s' },
};

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 20, text: 20, reasoning: 0 },
};

function taskInput(): AgentTaskInput {
  const definition = validateSwarm({
    name: 's',
    agents: { writer: { model: 'mock:writer' } },
    tasks: { write: { agent: 'writer', prompt: 'Write.' } },
  });
  return {
    swarm: 's',
    ownerId: 'team',
    workflowId: 'wf-s',
    task: 'write',
    instance: 0,
    definition: definition.tasks.write as AgentTaskInput['definition'],
    agent: definition.agents.writer as NonNullable<AgentTaskInput['agent']>,
    inputs: {},
    inRefs: [],
  };
}

/** A model stream whose parts are pushed by the test, so it can look at the store mid-answer. */
function controlledStream() {
  let controller!: ReadableStreamDefaultController<LanguageModelV4StreamPart>;
  const stream = new ReadableStream<LanguageModelV4StreamPart>({
    start(given) {
      controller = given;
    },
  });
  let n = 0;
  return {
    stream,
    text(delta: string) {
      if (n === 0) {
        controller.enqueue({ type: 'stream-start', warnings: [] });
        controller.enqueue({ type: 'text-start', id: 't' });
      }
      n += 1;
      controller.enqueue({ type: 'text-delta', id: 't', delta });
    },
    finish() {
      controller.enqueue({ type: 'text-end', id: 't' });
      controller.enqueue({ type: 'finish', usage, finishReason: { unified: 'stop', raw: 'stop' } });
      controller.close();
    },
    fail(message: string) {
      controller.enqueue({ type: 'error', error: new Error(message) });
      controller.close();
    },
  };
}

async function eventually<T>(read: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let tries = 0; tries < 200; tries += 1) {
    const value = await read();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`never saw ${what}`);
}

describe('an agent model step streams its answer into the store', () => {
  let dir: string;
  let store: SqliteOutputStore;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wharf-step-stream-'));
    store = new SqliteOutputStore({ path: join(dir, 'outputs.db') });
  });
  afterEach(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });
  /** The worker's activities on this test's store, with `model` as the agent's model. */
  const activitiesWith = (model: MockLanguageModelV4) =>
    createActivities({
      store,
      artifacts: new InMemoryArtifactStore(),
      models: createModelRegistry({ models: { 'mock:writer': model }, env: {} }),
      workDir: join(dir, 'work'),
    });

  it('text is readable while the model writes, and the seal is exactly the step text', async () => {
    const streams: ReturnType<typeof controlledStream>[] = [];
    const model = new MockLanguageModelV4({
      doStream: async () => {
        const next = controlledStream();
        streams.push(next);
        return { stream: next.stream };
      },
    });
    const activities = activitiesWith(model);
    const heartbeats: SubagentHeartbeat[] = [];
    const environment = new MockActivityEnvironment({ ...identity, attempt: 1 });
    environment.on('heartbeat', (details: SubagentHeartbeat) => heartbeats.push(details));
    const start = (await environment.run(activities.agentStart, taskInput())) as AgentStartResult;
    const step = environment.run(activities.agentModelStep, {
      brief: start.brief,
      conversation: start.conversation,
      step: 0,
    }) as Promise<AgentModelStepResult>;

    const live = await eventually(async () => streams[0], 'the model called');
    const stream = heartbeats[0]?.stream;
    expect(stream).toMatch(/^str_/);
    live.text('# Tides\n');
    live.text('The moon pulls ');
    // Mid-answer: the first words are stored, the attempt is open.
    const seen = await eventually(async () => {
      const snapshot = await readStream(store, { stream: stream as string }).catch(() => undefined);
      return snapshot !== undefined && snapshot.current.chunks.length > 0 ? snapshot : undefined;
    }, 'a chunk of the open stream');
    expect(seen.current).toMatchObject({ attempt: 1, state: 'open' });
    const tail = tailStream(store, { stream: stream as string }, { intervalMs: 10 });
    expect((await tail.next()).value).toEqual({ type: 'attempt', attempt: 1 });
    const first = await tail.next();
    expect(first.value).toMatchObject({ type: 'chunk', attempt: 1, seq: 0 });
    expect(Buffer.from((first.value as { bytes: Uint8Array }).bytes).toString()).toBe(
      '# Tides\nThe moon pulls ',
    );

    live.text('the sea.');
    live.finish();
    const result = await step;
    const record = JSON.parse(Buffer.from((await store.get({ outId: result.record })).body).toString());
    expect(record.model.text).toBe('# Tides\nThe moon pulls the sea.');
    const rest: string[] = [];
    for await (const event of tail) {
      if (event.type === 'chunk') rest.push(Buffer.from(event.bytes).toString());
      if (event.type === 'sealed') break;
    }
    expect(rest.join('')).toBe('the sea.');

    const sealed = await readStream(store, { stream: stream as string });
    expect(sealed.current).toMatchObject({ attempt: 1, state: 'sealed' });
    const seal = await store.get({ outId: sealed.current.sealOutId as string });
    expect(Buffer.from(seal.body).toString()).toBe(record.model.text);
    expect(seal.record.contentType).toBe('text/markdown');
    expect(seal.record.sha256).toBe(createHash('sha256').update(record.model.text).digest('hex'));
    expect(seal.record.labels).toMatchObject({ task: 'write', source: 'step-text' });
  });

  it("a step that fails mid-answer leaves its attempt abandoned; the retry's text is never mixed with it", async () => {
    let calls = 0;
    const model = new MockLanguageModelV4({
      doStream: async () => {
        calls += 1;
        const next = controlledStream();
        if (calls === 1) {
          next.text('first attempt, half an answ');
          setTimeout(() => next.fail('connection reset by the provider'), 150);
        } else {
          next.text('second attempt, whole.');
          next.finish();
        }
        return { stream: next.stream };
      },
    });
    const activities = activitiesWith(model);
    const run = <TInput, TResult>(attempt: number, fn: (input: TInput) => Promise<TResult>, input: TInput) =>
      new MockActivityEnvironment({ ...identity, attempt }).run(fn, input) as Promise<TResult>;
    const start = await run(1, activities.agentStart, taskInput());
    const stepInput = { brief: start.brief, conversation: start.conversation, step: 0 };
    await expect(run(1, activities.agentModelStep, stepInput)).rejects.toThrow(
      'connection reset by the provider',
    );
    const heartbeats: SubagentHeartbeat[] = [];
    const second = new MockActivityEnvironment({ ...identity, attempt: 2 });
    second.on('heartbeat', (details: SubagentHeartbeat) => heartbeats.push(details));
    await second.run(activities.agentModelStep, stepInput);

    const snapshot = await readStream(store, { stream: heartbeats[0]?.stream as string });
    expect(snapshot.attempts.map(({ attempt, state, reason }) => ({ attempt, state, reason }))).toEqual([
      { attempt: 1, state: 'abandoned', reason: 'connection reset by the provider' },
      { attempt: 2, state: 'sealed', reason: undefined },
    ]);
    const text: string[] = [];
    for await (const event of tailStream(store, { stream: snapshot.stream }, { follow: false }))
      if (event.type === 'chunk') text.push(Buffer.from(event.bytes).toString());
    expect(text.join('')).toBe('second attempt, whole.');
  });

  it('a model without doStream answers as before and stores no stream', async () => {
    const model = new MockLanguageModelV4({
      doGenerate: async () => ({
        content: [{ type: 'text', text: 'not streamed' }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage,
        warnings: [],
      }),
    });
    const activities = activitiesWith(model);
    const heartbeats: SubagentHeartbeat[] = [];
    const environment = new MockActivityEnvironment({ ...identity, attempt: 1 });
    environment.on('heartbeat', (details: SubagentHeartbeat) => heartbeats.push(details));
    const start = (await environment.run(activities.agentStart, taskInput())) as AgentStartResult;
    await environment.run(activities.agentModelStep, {
      brief: start.brief,
      conversation: start.conversation,
      step: 0,
    });
    expect(model.doGenerateCalls).toHaveLength(1);
    await expect(readStream(store, { stream: heartbeats[0]?.stream as string })).rejects.toSatisfy(
      StreamNotFoundError.isInstance,
    );
  });
});
