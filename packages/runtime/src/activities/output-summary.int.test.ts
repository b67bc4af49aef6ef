import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { InMemoryArtifactStore } from '@wharf/evidence';
import { SqliteOutputStore } from '@wharf/output-store';
import type { Summarizer } from '@wharf/stdio-limits';
import type { SubagentInput, SubagentResult } from '@wharf/swarm';
import { validateSwarm } from '@wharf/swarm';
import { MockLanguageModelV4 } from 'ai/test';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createActivities } from '../worker/create-activities.js';
import { modelSummarizer } from './output-summary.js';

const identity = {
  activityId: '3',
  activityType: 'runSubagent',
  workflowExecution: { workflowId: 'wf-sum', runId: 'run-a' },
};

function input(strategy: string): SubagentInput {
  const definition = validateSwarm({
    name: 's',
    tasks: {
      build: {
        script: { content: 'seq 1 5000; echo "3 warnings, 1 error: disk on fire"' },
        limits: { max_stdout_bytes: 4096, truncation_strategy: strategy },
      },
    },
  });
  return {
    swarm: 's',
    ownerId: 'team',
    workflowId: 'wf-sum',
    task: 'build',
    instance: 0,
    definition: definition.tasks.build as SubagentInput['definition'],
    inputs: {},
    inRefs: [],
  };
}

function mockModel(prompts: string[]) {
  return new MockLanguageModelV4({
    doGenerate: async (options) => {
      prompts.push(JSON.stringify(options.prompt));
      return {
        content: [{ type: 'text', text: 'Counted to 5000, then one error: disk on fire.' }],
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

describe('truncation_strategy: summary for script output', () => {
  let dir: string;
  let store: SqliteOutputStore;
  let artifacts: InMemoryArtifactStore;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wharf-summary-'));
    store = new SqliteOutputStore({ path: join(dir, 'outputs.db') });
    artifacts = new InMemoryArtifactStore({ spoolDirectories: [join(dir, 'work')] });
  });
  afterEach(async () => {
    store.close();
    await rm(dir, { recursive: true, force: true });
  });

  const body = async (outId: string) => Buffer.from((await store.get({ outId })).body).toString('utf8');

  /** Runs the `build` task (attempt `attempt`) under `strategy`, with or without a summarizer. */
  async function runBuild(
    strategy: string,
    options: { summarizer?: Summarizer; attempt?: number },
  ): Promise<SubagentResult> {
    const activities = createActivities({
      store,
      artifacts,
      workDir: join(dir, 'work'),
      env: { PATH: process.env.PATH },
      ...(options.summarizer === undefined ? {} : { summarizer: options.summarizer }),
    });
    return new MockActivityEnvironment({ ...identity, attempt: options.attempt ?? 1 }).run(
      activities.runSubagent,
      input(strategy),
    );
  }

  it('stores a model summary beside the full stdout and previews it; a retry reuses it', async () => {
    const prompts: string[] = [];
    const summarizer = modelSummarizer(mockModel(prompts));
    const result = await runBuild('summary', { summarizer });
    expect(result.status).toBe('ok');
    expect(result.outputs).toHaveLength(2);
    const [stdoutRef, summaryRef] = result.outputs as [{ outId: string }, { outId: string }];
    expect((await body(stdoutRef.outId)).endsWith('4999\n5000\n3 warnings, 1 error: disk on fire\n')).toBe(
      true,
    );
    const summary = await body(summaryRef.outId);
    expect(summary).toContain('Counted to 5000, then one error: disk on fire.');
    expect(result.preview).toContain('Counted to 5000');
    // The model saw the head and the tail of the full output, and the task's name.
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toContain('Output of task build');
    expect(prompts[0]).toContain('disk on fire');
    expect(prompts[0]).toMatch(/\\n1\\n2\\n3\\n/);

    const retried = await runBuild('summary', { summarizer, attempt: 2 });
    expect(retried.outputs).toEqual(result.outputs);
    expect(retried.preview).toBe(result.preview);
    expect(prompts).toHaveLength(1);
  });

  it('says so when no summarizer is configured, and keeps first and last bytes', async () => {
    const result = await runBuild('summary', {});
    const summary = await body((result.outputs[1] as { outId: string }).outId);
    expect(summary.split('\n')[0]).toContain('No summarizer configured');
    expect(summary).toContain('disk on fire');
    expect(result.preview).toContain('No summarizer configured');
  });

  it('adds no summary under other strategies', async () => {
    const prompts: string[] = [];
    const summarizer = modelSummarizer(mockModel(prompts));
    const result = await runBuild('tail', { summarizer });
    expect(result.outputs).toHaveLength(1);
    expect(prompts).toHaveLength(0);
  });
});
