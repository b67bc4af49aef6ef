import { type SwarmResult, swarmTaskWorkflowId } from '@wharf/orchestrator';
import { runChainHistory } from '@wharf/orchestrator/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSwarmTestEnv, replayRunChain, type SwarmTestEnv } from './swarm-env.js';
import { swarmTreeFromFiles } from './swarm-tree.js';

// A swarm that runs other swarms as tasks (`swarm:`), as child swarmWorkflows on the same task
// queue: the child's result is the task's output for `†` references, a failed child fails its
// task (its `||` failure side is written), and a child has its own history and continue-as-new.

/** A child of `steps` chained scripts; its last prints `<who> saw <version>`. */
const chain = (steps: number) =>
  [
    'name: chain',
    'tasks:',
    '  s0:',
    '    inputs: { version: †input.version }',
    `    script: { content: 'node -e "console.log(JSON.parse(process.env.WHARF_INPUTS).version.trim())"' }`,
    '    output: †data.s0',
    ...Array.from({ length: steps - 1 }, (_, index) => [
      `  s${index + 1}:`,
      `    depends_on: [s${index}]`,
      `    inputs: { prev: †data.s${index}.preview, who: †input.who }`,
      `    script: { content: 'node -e "const i = JSON.parse(process.env.WHARF_INPUTS); console.log(i.who + \\" saw \\" + i.prev.trim())"' }`,
      `    output: †data.s${index + 1}`,
    ]).flat(),
  ].join('\n');

describe('swarm: tasks run their swarm as a child workflow', () => {
  let env: SwarmTestEnv;
  beforeAll(async () => {
    env = await createSwarmTestEnv('nested-swarm');
  });
  afterAll(async () => {
    await env?.close();
  });
  const text = async (outId: string | undefined) =>
    Buffer.from((await env.store.get({ outId: outId ?? '' })).body).toString();

  it('hands the child’s result to later tasks by †, on the same task queue, each run with its own history', async () => {
    const definition = await swarmTreeFromFiles({
      'parent.yaml': `name: parent
tasks:
  version: { script: { content: echo 2.4.0 }, output: †data.version }
  notes:
    depends_on: [version]
    swarm: ./chain.yaml
    inputs: { version: †data.version.preview, who: ops }
    output: †data.notes
  announce:
    depends_on: [notes]
    inputs: { notes: †data.notes }
    script:
      content: node -e 'const { notes } = JSON.parse(process.env.WHARF_INPUTS); console.log(notes.status, notes.outIds.length, notes.preview)'
`,
      'chain.yaml': chain(2),
    });
    const { workflowId } = await env.wharf.startSwarm(definition, {});
    const result = await env.withWorker(() => env.wharf.result(workflowId));
    expect(result.status).toBe('completed');
    const announce = await text(result.outputs.announce?.[0]);
    expect(announce.trim()).toBe('ok 2 ops saw 2.4.0');

    const childId = swarmTaskWorkflowId(workflowId, 'notes');
    const child = env.temporal.client.workflow.getHandle(childId);
    const described = await child.describe();
    expect(described.status.name).toBe('COMPLETED');
    expect(described.taskQueue).toBe(env.taskQueue);
    expect(described.parentExecution?.workflowId).toBe(workflowId);
    const childResult = (await child.result()) as SwarmResult;
    // The task's outputs are the child's: its last task's first.
    expect(result.outputs.notes).toEqual([
      ...(childResult.outputs.s1 ?? []),
      ...(childResult.outputs.s0 ?? []),
    ]);
    expect(childResult.previews).toEqual({ s0: '2.4.0\n', s1: 'ops saw 2.4.0\n' });

    // The run's event stream holds the child's tasks, named from the parent, before the swarm task's end.
    const events = [];
    for await (const event of env.wharf.events(workflowId, { follow: false })) events.push(event);
    const lines = events.map((event) => `${event.type}${'label' in event ? ` ${event.label}` : ''}`);
    const notes = lines.slice(lines.indexOf('task.started notes'), lines.indexOf('task.finished notes') + 1);
    expect(notes).toEqual([
      'task.started notes',
      'task.started notes.s0',
      'task.finished notes.s0',
      'task.started notes.s1',
      'task.finished notes.s1',
      'task.finished notes',
    ]);
    const inner = events.find((event) => event.type === 'task.finished' && event.label === 'notes.s1');
    expect(inner).toMatchObject({ task: 'notes.s1', workflowId: childId });
    expect(events.filter((event) => event.type.startsWith('run.')).map((event) => event.workflowId)).toEqual([
      workflowId,
      workflowId,
    ]);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
  });

  it('fails the task when the child fails: its failure side is written and read', async () => {
    const definition = await swarmTreeFromFiles({
      'parent.yaml': `name: parent
on_failure: complete
tasks:
  broken:
    swarm: ./failing.yaml
    output: †data.notes || †data.problem
  after:
    depends_on: [broken]
    script: { content: echo never }
  why:
    depends_on: [broken]
    inputs: { problem: †data.problem }
    script: { content: node -e 'console.log(JSON.parse(process.env.WHARF_INPUTS).problem.message)' }
`,
      'failing.yaml': "name: failing\ntasks:\n  boom: { script: { content: 'echo bad >&2; exit 3' } }\n",
    });
    const { workflowId } = await env.wharf.startSwarm(definition, {});
    const result = await env.withWorker(() => env.wharf.result(workflowId));
    expect(result.status).toBe('failed');
    const status = (task: string) => result.tasks.find((entry) => entry.task === task);
    expect(status('broken')).toMatchObject({ status: 'failed' });
    expect(status('broken')?.reason).toContain('boom');
    expect(status('after')?.status).toBe('skipped');
    expect(status('why')?.status).toBe('done');
    expect(await text(result.outputs.why?.[0])).toContain('boom');
    const child = await env.temporal.client.workflow
      .getHandle(swarmTaskWorkflowId(workflowId, 'broken'))
      .describe();
    expect(child.status.name).toBe('FAILED');
  });

  it('continues the child as new on its own, keeping what it hands back, and replays every run', async () => {
    const definition = await swarmTreeFromFiles({
      'parent.yaml': `name: parent
tasks:
  long:
    swarm: ./chain.yaml
    inputs: { version: "9.9.9", who: ci }
`,
      'chain.yaml': chain(8),
    });
    const { workflowId, firstExecutionRunId } = await env.wharf.startSwarm(
      definition,
      {},
      { historyEventLimit: 40 },
    );
    const result = await env.withWorker(() => env.wharf.result(workflowId));
    expect(result.status).toBe('completed');
    const childId = swarmTaskWorkflowId(workflowId, 'long');
    const childResult = (await env.temporal.client.workflow.getHandle(childId).result()) as SwarmResult;
    expect(childResult.metrics.continuedAsNew).toBeGreaterThanOrEqual(1);
    // What the child hands back was kept across its continue-as-new.
    expect(childResult.previews?.s7).toBe(`${'ci saw '.repeat(7)}9.9.9\n`);
    expect(result.outputs.long?.[0]).toBe(childResult.outputs.s7?.[0]);
    // The child's first run, as the parent's history names it; its chain and the parent's replay.
    const parentRuns = await runChainHistory(env.temporal.client, workflowId, firstExecutionRunId);
    const parentHistory = await env.temporal.client.workflow
      .getHandle(workflowId, firstExecutionRunId)
      .fetchHistory();
    const started = parentHistory.events?.find((event) => event.childWorkflowExecutionStartedEventAttributes);
    const childFirstRun =
      started?.childWorkflowExecutionStartedEventAttributes?.workflowExecution?.runId ?? '';
    const childRuns = await runChainHistory(env.temporal.client, childId, childFirstRun);
    expect(childRuns.length).toBe(childResult.metrics.continuedAsNew + 1);
    expect(await replayRunChain(env, childId, childRuns)).toEqual([]);
    expect(await replayRunChain(env, workflowId, parentRuns)).toEqual([]);
  });
});
