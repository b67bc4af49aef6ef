import { parseSwarm } from '@wharf/orchestrator';
import { createModelRegistry } from '@wharf/orchestrator/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptedModel, toolResultsSent } from './scripted-model.js';
import { createSwarmTestEnv, type SwarmTestEnv } from './swarm-env.js';

type Call = Parameters<typeof toolResultsSent>[0];

describe('spawn_worker: an agent starts a worker mid-run and gets its compact payload back', () => {
  let env: SwarmTestEnv;
  beforeAll(async () => {
    env = await createSwarmTestEnv('agent-spawn');
  });
  afterAll(async () => {
    await env?.close();
  });

  it('runs the worker as a child agent workflow, shows the model refs and a preview only, and bounds spawning', async () => {
    const lead = scriptedModel([
      {
        toolCalls: [
          {
            toolName: 'spawn_worker',
            input: { agent: 'checker', prompt: 'Count the files.', inputs: { dir: 'src' } },
          },
          {
            toolName: 'spawn_worker',
            input: { agent: 'checker', prompt: 'Big.', inputs: { blob: 'x'.repeat(9000) } },
          },
          { toolName: 'spawn_worker', input: { agent: 'nobody', prompt: 'Do it.' } },
        ],
      },
      (prompt) => {
        const payload = JSON.stringify(prompt);
        const outId = /read_input\): (out_[\w-]+)/.exec(payload)?.[1] ?? 'missing';
        return {
          toolCalls: [
            { toolName: 'read_input', input: { out_id: outId } },
            { toolName: 'spawn_worker', input: { agent: 'checker', prompt: 'Once more.' } },
          ],
        };
      },
      { toolCalls: [{ toolName: 'emit', input: { body: 'triage: 3 files, all fine' } }] },
      { text: 'Triaged.' },
    ]);
    const checker = scriptedModel([
      { toolCalls: [{ toolName: 'shell', input: { command: 'echo checked 3 files' } }] },
      {
        toolCalls: [
          { toolName: 'emit', input: { body: 'checker report: 3 files, no problems', name: 'check.md' } },
        ],
      },
      { text: 'Checked 3 files.' },
    ]);
    const definition = parseSwarm(`
name: agent-spawn
agents:
  lead: { model: mock:lead, tools: [spawn_worker], max_spawns: 2 }
  checker: { model: mock:checker, tools: [shell, spawn_worker] }
tasks:
  triage: { agent: lead, prompt: Triage the repository. }
`);
    const { workflowId } = await env.wharf.startSwarm(definition, {}, { workdir: env.dir });
    const result = await env.withWorker(() => env.wharf.result(workflowId), {
      models: createModelRegistry({ models: { 'mock:lead': lead, 'mock:checker': checker }, env: {} }),
    });
    expect(result.status).toBe('completed');
    const parent = `${workflowId}/agent/triage`;
    const spawned = `${parent}/spawn/1`;

    // The worker was sent the lead's prompt and inputs; it is not offered spawn_worker (depth 1).
    expect(checker.doStreamCalls).toHaveLength(3);
    expect(JSON.stringify(checker.doStreamCalls[0]?.prompt)).toContain('Count the files.');
    expect(JSON.stringify(checker.doStreamCalls[0]?.prompt)).toContain('Inputs: {\\"dir\\":\\"src\\"}');
    const offered = (checker.doStreamCalls[0]?.tools ?? []).map((entry) => entry.name);
    expect(offered).toContain('shell');
    expect(offered).not.toContain('spawn_worker');
    const leadOffered = (lead.doStreamCalls[0]?.tools ?? []).map((entry) => entry.name);
    expect(leadOffered).toContain('spawn_worker');

    // What the lead was sent: the child workflow, the output refs and the compact payload, no body.
    const first = toolResultsSent(lead.doStreamCalls[1] as Call);
    const payload = String(first.get('call-0-0')?.value);
    expect(first.get('call-0-0')?.type).toBe('text');
    expect(payload).toMatch(
      new RegExp(
        `^Spawned worker ${spawned.replace(/[/]/g, '\\/')} \\(agent checker\\): ok\\.\\nOutputs \\(read one whole with read_input\\): out_[\\w-]+\\n`,
      ),
    );
    expect(payload).toContain('Worker job triage.spawn-1 ');
    expect(payload).toContain('1. shell [ok, exit=0');
    expect(payload).toContain('Summary: Checked 3 files.');
    expect(payload).toContain(`[EVIDENCE:run_id=${workflowId},job_id=triage.spawn-1`);
    expect(payload).not.toContain('checker report');
    // Inputs over the bound are refused by Wharf, an agent the swarm lacks by the schema.
    expect(first.get('call-0-1')).toEqual({
      type: 'error-text',
      value:
        'error: invalid spawn_worker input: inputs are 9011 bytes, at most 8000; pass out ids, not bodies',
    });
    expect(first.get('call-0-2')?.type).toBe('error-text');
    expect(String(first.get('call-0-2')?.value)).toContain('Invalid input for tool spawn_worker');

    // The spawned worker's output is in the store under the run, and the lead may read it.
    const outId = /read_input\): (out_[\w-]+)/.exec(payload)?.[1] ?? '';
    const record = await env.store.get({ outId });
    expect(Buffer.from(record.body).toString()).toBe('checker report: 3 files, no problems');
    expect(record.record.producer.runId).toBe(workflowId);
    const second = toolResultsSent(lead.doStreamCalls[2] as Call);
    expect(String(second.get('call-1-0')?.value)).toContain('checker report: 3 files, no problems');
    // The third spawn is over `max_spawns: 2` (the refused one counted): the lead is told so.
    expect(second.get('call-1-1')).toEqual({
      type: 'error-text',
      value: 'error: spawn limit reached: this task may spawn 2 workers',
    });

    // One child agent workflow, started by the lead's; its tool calls are evidence of the run.
    const history = await env.temporal.client.workflow.getHandle(parent).fetchHistory();
    const children = (history.events ?? []).flatMap((event) =>
      event.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId
        ? [event.startChildWorkflowExecutionInitiatedEventAttributes.workflowId]
        : [],
    );
    expect(children).toEqual([spawned]);
    expect((await env.temporal.client.workflow.getHandle(spawned).describe()).status.name).toBe('COMPLETED');
    const workerCalls = await env.artifacts.listToolCalls(`${workflowId}:triage.spawn-1`);
    expect(workerCalls.map((call) => call.toolName)).toEqual(['shell', 'emit']);
    const leadCalls = await env.artifacts.listToolCalls(`${workflowId}:triage`);
    expect(leadCalls.map((call) => call.toolName)).toEqual([
      'spawn_worker',
      'spawn_worker',
      'read_input',
      'spawn_worker',
      'emit',
    ]);

    // The task's usage counts the worker's model calls too (4 of the lead's, 3 of the worker's).
    expect(result.tasks[0]?.usage?.calls).toBe(7);
    const [report] = result.outputs.triage ?? [];
    expect(Buffer.from((await env.store.get({ outId: report ?? '' })).body).toString()).toBe(
      'triage: 3 files, all fine',
    );
  });
});
