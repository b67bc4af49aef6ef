import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { historyFromJSON, historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import type { SwarmProgress } from '@wharf/orchestrator';
import { runChainHistory } from '@wharf/orchestrator/client';
import { createModelRegistry, createWharfDataConverter } from '@wharf/orchestrator/node';
import { InMemoryOutputStore } from '@wharf/output-store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptedModel } from './scripted-model.js';
import { createSwarmTestEnv, type SwarmTestEnv, wharfBundle } from './swarm-env.js';

// One baseline history per workflow type, recorded by this version of Wharf and replayed
// against the current workflow code: a change that would break a run in flight (a command
// added, dropped or reordered, carried state read differently) fails here. Such a change is
// rolled out as docs/architecture.md ("Changing workflow code") says; once it is, record the
// baselines again with the new code:
//   pnpm build && WHARF_RECORD_HISTORIES=1 pnpm vitest run --project int test/src/workflow-replay.int.test.ts
const fixtures = fileURLToPath(new URL('../fixtures/histories/', import.meta.url));

/** One recorded workflow: every run of its continue-as-new chain, first run first. */
interface HistoryFixture {
  workflowType: 'swarmWorkflow' | 'agentTaskWorkflow';
  workflowId: string;
  runs: unknown[];
}

// The swarm exercises what the workflow code decides: dependencies, a map loop under
// max_concurrency, `when:` false, a failure read through `||`, a user channel, the context
// pool and its hook, an input added by signal, a task cancelled by update, an approval gate
// answered by update, continue-as-new between and within supersteps, an agent task with
// tools that spawns a worker and holds a shell call until an update approves it (its swarm
// told by signal), the supervisor, the final report, and the failure of a failed swarm.
const baseline = `
name: baseline
agents:
  writer: { model: mock:writer, tools: [spawn_worker, { name: shell, approval: true }] }
  helper: { model: mock:helper }
  boss: { model: mock:boss }
channels:
  findings: { type: topic }
tasks:
  list:
    script: { content: "printf 'alpha\\nbeta\\n'" }
    output: †data.list
  each:
    depends_on: [list]
    loop: { type: map, over: †data.list.preview, max_concurrency: 1 }
    script: { content: 'echo "item $WHARF_INSTANCE"' }
    output: †channels.findings
  never:
    depends_on: [list]
    when: †data.list.exitCode != 0
    script: { content: echo never }
  broken:
    script: { content: 'echo "disk on fire" >&2; exit 3' }
    output: †data.broken || †data.broken_error
  recover:
    depends_on: [broken]
    inputs: { error: †data.broken_error.outId }
    script: { content: 'echo "recovered $WHARF_INPUTS"' }
  greet:
    inputs: { who: †input.who }
    script: { content: 'echo "hello $WHARF_INPUTS"' }
  slow: { script: { content: sleep 60 } }
  write:
    agent: writer
    depends_on: [each]
    inputs: { findings: †channels.findings }
    prompt: Write up the findings.
  deploy:
    depends_on: [each]
    approval: { prompt: Ship it? }
    script: { content: echo shipped }
hooks:
  post_task:
    - checkpoint_and_prune: { every: 3, strategy: most_recent, keep_count: 2 }
supervisor: { agent: boss, question: All good? }
`;

const models = () =>
  createModelRegistry({
    env: {},
    models: {
      'mock:writer': scriptedModel([
        {
          toolCalls: [
            { toolName: 'spawn_worker', input: { agent: 'helper', prompt: 'Check the findings.' } },
          ],
        },
        { toolCalls: [{ toolName: 'shell', input: { command: 'echo checked' } }] },
        { toolCalls: [{ toolName: 'emit', input: { body: 'report: 2 findings, 1 failure' } }] },
        { text: 'Reported.' },
      ]),
      'mock:helper': scriptedModel([{ text: 'Checked.' }]),
      'mock:boss': scriptedModel([{ text: 'One task failed: broken.' }]),
    },
  });

/** Polls the swarm's progress until `ready` holds (recording only: replaying waits for nothing). */
async function until(env: SwarmTestEnv, workflowId: string, ready: (progress: SwarmProgress) => boolean) {
  for (let attempt = 0; attempt < 600; attempt++) {
    const progress = await env.wharf.progress(workflowId).catch(() => undefined);
    if (progress !== undefined && ready(progress)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`swarm ${workflowId} never got there`);
}

const statusOf = (progress: SwarmProgress, task: string) =>
  progress.tasks.find((entry) => entry.task === task);

describe.runIf(process.env.WHARF_RECORD_HISTORIES === '1')('record the baseline histories', () => {
  let env: SwarmTestEnv;
  beforeAll(async () => {
    env = await createSwarmTestEnv('workflow-replay-record');
    await mkdir(fixtures, { recursive: true });
  });
  afterAll(async () => {
    await env?.close();
  });

  it('records a swarm run and its agent task', async () => {
    const workflowId = 'replay-baseline';
    const { firstExecutionRunId } = await env.wharf.startSwarm(
      baseline,
      {},
      // greet waits for †input.who, added below while it runs.
      { workflowId, historyEventLimit: 12, maxConcurrentTasks: 3, workdir: env.dir, waitForInputsMs: 60_000 },
    );
    await env.withWorker(
      async () => {
        await until(env, workflowId, (progress) => statusOf(progress, 'slow')?.status === 'running');
        // The input first, so the task waiting on it runs in the step after the cancelled one.
        await env.wharf.addInput(workflowId, 'who', 'wharf');
        await env.wharf.cancelTask(workflowId, 'slow', 'not needed');
        await until(
          env,
          workflowId,
          (progress) =>
            statusOf(progress, 'deploy')?.approval?.requestedAt !== undefined &&
            (progress.pendingToolCalls ?? []).length > 0,
        );
        await env.wharf.approveTask(workflowId, 'deploy', { approve: true, comment: 'ship it', by: 'ana' });
        const [held] = (await env.wharf.pendingApprovals(workflowId)).filter(
          (gate) => gate.call !== undefined,
        );
        await env.wharf.approveToolCall(workflowId, 'write', held?.call?.id ?? '', {
          approve: true,
          by: 'ana',
        });
        return env.wharf.result(workflowId);
      },
      { models: models() },
    );
    const history = async (id: string, runId?: string) =>
      JSON.parse(historyToJSON(await env.temporal.client.workflow.getHandle(id, runId).fetchHistory()));
    const runs = await runChainHistory(env.temporal.client, workflowId, firstExecutionRunId);
    const swarm: HistoryFixture = {
      workflowType: 'swarmWorkflow',
      workflowId,
      runs: await Promise.all(runs.map((run) => history(workflowId, run.runId))),
    };
    const agentId = `${workflowId}/agent/write`;
    const agent: HistoryFixture = {
      workflowType: 'agentTaskWorkflow',
      workflowId: agentId,
      runs: [await history(agentId)],
    };
    await writeFile(join(fixtures, 'swarm-workflow.json'), `${JSON.stringify(swarm)}\n`);
    await writeFile(join(fixtures, 'agent-task-workflow.json'), `${JSON.stringify(agent)}\n`);
  });
});

describe('baseline histories replay against the current workflow code', () => {
  const files = existsSync(fixtures) ? readdirSync(fixtures).filter((file) => file.endsWith('.json')) : [];
  beforeAll(() => {
    try {
      Runtime.install({ logger: new DefaultLogger('WARN') });
    } catch {
      // A runtime already exists in this process; keep it.
    }
  });

  it('has one baseline per workflow type', () => {
    const types = files.map(
      (file) => (JSON.parse(readFileSync(join(fixtures, file), 'utf8')) as HistoryFixture).workflowType,
    );
    expect(types.sort()).toEqual(['agentTaskWorkflow', 'swarmWorkflow']);
  });

  it.each(files)('%s replays', async (file) => {
    const fixture = JSON.parse(readFileSync(join(fixtures, file), 'utf8')) as HistoryFixture;
    expect(fixture.runs.length).toBeGreaterThan(0);
    // The recorded payloads are all inline: a store is needed only to build the converter.
    const dataConverter = createWharfDataConverter({ store: new InMemoryOutputStore() });
    for (const run of fixture.runs) {
      await Worker.runReplayHistory(
        { workflowBundle: await wharfBundle(), dataConverter },
        historyFromJSON(run),
        fixture.workflowId,
      );
    }
  });
});
