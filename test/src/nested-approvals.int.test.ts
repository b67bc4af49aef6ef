import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type PendingApproval, swarmTaskWorkflowId } from '@wharf/orchestrator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSwarmTestEnv, type SwarmTestEnv } from './swarm-env.js';
import { swarmTreeFromFiles } from './swarm-tree.js';

// Approvals inside a `swarm:` task's child run, seen and answered from the parent run: its gate
// and the tool calls its agents hold are the parent's pending approvals (`notes.publish`), its
// progress sits under the task, and `approveTask(<parent>, 'notes.publish')` answers the gate in
// the child's workflow, once: a second answer is refused as a top-level one is.

describe('approvals inside a swarm: task’s child run', () => {
  let env: SwarmTestEnv;
  beforeAll(async () => {
    env = await createSwarmTestEnv('nested-approvals');
  });
  afterAll(async () => {
    await env?.close();
  });

  /** Polls the parent (a worker must run) until every name in `names` waits; returns what waits. */
  async function waiting(workflowId: string, names: readonly string[]): Promise<PendingApproval[]> {
    for (let attempt = 0; attempt < 600; attempt++) {
      const pending = await env.wharf.pendingApprovals(workflowId).catch(() => []);
      if (names.every((name) => pending.some((gate) => gate.task === name))) return pending;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`${names.join(', ')} did not wait for an answer`);
  }

  it('lists the child’s gate and held tool call as the parent’s and answers each from the parent, once', async () => {
    const runs = join(env.dir, 'shell-runs');
    const model = join(env.dir, 'ops-model.yaml');
    await writeFile(
      model,
      `replies:
  - tool_calls: [{ tool: shell, input: { command: "echo cleaned >> ${runs}" } }]
  - text: All clean.
`,
    );
    const definition = await swarmTreeFromFiles({
      'parent.yaml': `name: parent
tasks:
  notes: { swarm: ./notes.yaml }
  after: { depends_on: [notes], script: { content: echo after } }
`,
      'notes.yaml': `name: notes
agents:
  ops:
    model: scripted:${model}
    tools:
      - name: shell
        approval: { prompt: Run this command?, match: { command: '>>' } }
tasks:
  publish: { approval: { prompt: Publish? }, script: { content: echo published } }
  clean: { agent: ops, prompt: Clean up. }
`,
    });
    const { workflowId } = await env.wharf.startSwarm(definition, {});
    const child = swarmTaskWorkflowId(workflowId, 'notes');
    const result = await env.withWorker(async () => {
      const pending = await waiting(workflowId, ['notes.publish', 'notes.clean']);
      expect(pending.find((gate) => gate.task === 'notes.publish')).toMatchObject({ prompt: 'Publish?' });
      const call = pending.find((gate) => gate.task === 'notes.clean');
      expect(call).toMatchObject({
        prompt: 'Run this command?',
        call: { tool: 'shell', workflowId: `${child}/agent/clean` },
      });
      // The parent's progress holds the child's under its task, and reads waiting.
      const progress = await env.wharf.progress(workflowId);
      expect(progress.status).toBe('waiting');
      const notes = progress.tasks.find((task) => task.task === 'notes');
      expect(notes?.child).toMatchObject({ workflowId: child, swarm: 'notes', status: 'waiting' });

      expect(
        await env.wharf.approveTask(workflowId, 'notes.publish', { approve: true, by: 'ana', comment: 'ok' }),
      ).toMatchObject({ task: 'notes.publish', decision: 'approved' });
      await expect(env.wharf.approveTask(workflowId, 'notes.publish', { approve: false })).rejects.toThrow(
        'approveTask(notes.publish): task publish was already approved',
      );
      expect(
        await env.wharf.approveToolCall(workflowId, 'notes.clean', call?.call?.id ?? '', { approve: true }),
      ).toMatchObject({ decision: 'approved' });
      await expect(
        env.wharf.approveToolCall(workflowId, 'notes.clean', call?.call?.id ?? '', { approve: true }),
      ).rejects.toThrow(/was already approved/);
      return env.wharf.result(workflowId);
    });
    expect(result.status).toBe('completed');
    expect((await readFile(runs, 'utf8')).trim()).toBe('cleaned');
    const childResult = await env.wharf.result(child);
    expect(childResult.tasks.find((task) => task.task === 'publish')).toMatchObject({
      status: 'done',
      approval: { decision: 'approved', by: 'ana', comment: 'ok' },
    });
    // The child has ended: an answer now is refused, naming the child run.
    await expect(env.wharf.approveTask(workflowId, 'notes.publish', { approve: true })).rejects.toMatchObject(
      {
        code: 'INVALID_REQUEST',
      },
    );
  });
});
