import { parseSwarm } from '@wharf/orchestrator';
import { createModelRegistry } from '@wharf/orchestrator/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptedModel, toolResultsSent } from './scripted-model.js';
import { createSwarmTestEnv, type SwarmTestEnv } from './swarm-env.js';

type Call = Parameters<typeof toolResultsSent>[0];

describe('a supervisor with tools runs durably and may spawn workers mid-run', () => {
  let env: SwarmTestEnv;
  beforeAll(async () => {
    env = await createSwarmTestEnv('supervisor-spawn');
  });
  afterAll(async () => {
    await env?.close();
  });

  it('spawns a worker, gets its compact payload with evidence mounted under the budget, then answers', async () => {
    const answer = 'broken failed: disk on fire (stderr of broken); the checker found the disk full.';
    const boss = scriptedModel([
      { toolCalls: [{ toolName: 'spawn_worker', input: { agent: 'checker', prompt: 'Look at the disk.' } }] },
      { text: answer },
    ]);
    const checker = scriptedModel([
      { toolCalls: [{ toolName: 'shell', input: { command: 'echo "disk is full at /var"' } }] },
      { toolCalls: [{ toolName: 'emit', input: { body: 'checker report: /var is 100% used' } }] },
      { text: 'Checked the disk.' },
    ]);
    const budget = 4000;
    const definition = parseSwarm(`
name: supervisor-spawn
agents:
  boss: { model: mock:boss, tools: [spawn_worker] }
  checker: { model: mock:checker, tools: [shell] }
tasks:
  ok:
    script: { content: 'for i in $(seq 1 2000); do echo "healthy line $i"; done' }
  broken:
    script: { content: 'echo "disk on fire" >&2; exit 2' }
supervisor:
  agent: boss
  question: Which task failed and why?
  evidence_budget_bytes: ${budget}
on_failure: complete
`);
    const { workflowId } = await env.wharf.startSwarm(definition, {}, { workdir: env.dir });
    const result = await env.withWorker(() => env.wharf.result(workflowId), {
      models: createModelRegistry({ models: { 'mock:boss': boss, 'mock:checker': checker }, env: {} }),
    });
    const supervisorId = `${workflowId}/supervisor`;
    const spawned = `${supervisorId}/spawn/1`;

    // The supervisor's answer is the swarm's, as the one-activity supervisor reported it.
    expect(result.supervisor?.answer).toBe(answer);
    expect(result.supervisor?.error).toBeUndefined();
    // Two model calls of the supervisor, three of the worker it spawned.
    expect(result.supervisor?.usage?.calls).toBe(5);
    const evidenceBytes = result.supervisor?.evidenceBytes ?? 0;
    expect(evidenceBytes).toBeGreaterThan(0);

    // First call: the question and both compact payloads, their evidence mounted under the budget.
    expect(boss.doStreamCalls).toHaveLength(2);
    const first = JSON.stringify(boss.doStreamCalls[0]?.prompt);
    expect(first).toContain('Question: Which task failed and why?');
    expect(first).toContain('Worker results (2):');
    expect(first).toContain(`[EVIDENCE:run_id=${workflowId},job_id=broken`);
    expect(first).toContain('--- Evidence');
    expect(first).toContain('disk on fire');
    // 2,000 healthy lines (~38 KB) do not fit 4,000 bytes: the middle is cut, with a marker.
    expect(first).not.toContain('healthy line 1000');
    expect(first).toMatch(/truncated/i);
    // Measured as JSON of the prompt, so escapes may add a little over the budget itself.
    expect(evidenceBytes).toBeLessThanOrEqual(budget + 256);
    const offered = (boss.doStreamCalls[0]?.tools ?? []).map((entry) => entry.name);
    expect(offered).toContain('spawn_worker');

    // Second call: the spawned worker's compact payload (refs, summary, marker), never its body.
    const sent = toolResultsSent(boss.doStreamCalls[1] as Call);
    const payload = String(sent.get('call-0-0')?.value);
    expect(payload).toMatch(
      new RegExp(
        `^Spawned worker ${spawned.replace(/[/]/g, '\\/')} \\(agent checker\\): ok\\.\\nOutputs \\(read one whole with read_input\\): out_[\\w-]+\\n`,
      ),
    );
    expect(payload).toContain('1. shell [ok, exit=0');
    expect(payload).toContain('Summary: Checked the disk.');
    expect(payload).toContain(`[EVIDENCE:run_id=${workflowId},job_id=supervisor.spawn-1`);
    expect(payload).not.toContain('checker report');
    // Its evidence is mounted before that call too (the shell's real output), not stored.
    const second = JSON.stringify(boss.doStreamCalls[1]?.prompt);
    expect(second).toContain('disk is full at /var');
    expect(second).not.toContain('checker report');
    expect(second).not.toContain('healthy line 1000');

    // The worker was given the supervisor's prompt; its output is in the store under the run.
    expect(JSON.stringify(checker.doStreamCalls[0]?.prompt)).toContain('Look at the disk.');
    const outId = /read_input\): (out_[\w-]+)/.exec(payload)?.[1] ?? '';
    const record = await env.store.get({ outId });
    expect(Buffer.from(record.body).toString()).toBe('checker report: /var is 100% used');
    expect(record.record.producer.runId).toBe(workflowId);

    // The supervisor is a child agent workflow with the worker as its child; no `supervise` activity.
    const swarmHistory = await env.temporal.client.workflow.getHandle(workflowId).fetchHistory();
    const children = (history: typeof swarmHistory) =>
      (history.events ?? []).flatMap((event) =>
        event.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId
          ? [event.startChildWorkflowExecutionInitiatedEventAttributes.workflowId]
          : [],
      );
    expect(children(swarmHistory)).toContain(supervisorId);
    const activities = (swarmHistory.events ?? []).flatMap((event) =>
      event.activityTaskScheduledEventAttributes?.activityType?.name
        ? [event.activityTaskScheduledEventAttributes.activityType.name]
        : [],
    );
    expect(activities).not.toContain('supervise');
    const supervisorHistory = await env.temporal.client.workflow.getHandle(supervisorId).fetchHistory();
    expect(children(supervisorHistory)).toEqual([spawned]);

    // Mounted evidence never reaches history: neither the swarm's nor the supervisor's.
    for (const history of [swarmHistory, supervisorHistory]) {
      const text = JSON.stringify(history);
      expect(text).not.toContain('--- Evidence');
      expect(text).not.toContain('healthy line 1000');
    }
  });
});
