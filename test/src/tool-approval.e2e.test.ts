import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type PendingApproval, swarmSearchAttributes } from '@wharf/orchestrator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storedTexts } from './stored-texts.js';
import { createSwarmTestEnv, type SwarmTestEnv } from './swarm-env.js';
import { runWharf } from './wharf-cli.js';
import { startWorkerProcess } from './worker-process.js';

const workerScript = fileURLToPath(new URL('../fixtures/worker-process.mjs', import.meta.url));

// An agent whose shell calls wait for a person. The worker is killed outright while the first
// call waits: nothing is lost, `wharf status` still shows the call with no worker, and once a
// new worker runs, `wharf approve --call` lets the call run, once; the second call is rejected
// and the model reads the rejection as the tool's result, the command never having run.

describe('tool calls an agent holds for a person', () => {
  let env: SwarmTestEnv;
  beforeAll(async () => {
    env = await createSwarmTestEnv('tool-approval');
  });
  afterAll(async () => {
    await env?.close();
  });

  /** Polls the swarm (a worker must run) until a tool call waits; returns it. */
  async function heldCall(workflowId: string, skip: readonly string[] = []): Promise<PendingApproval> {
    for (let attempt = 0; attempt < 600; attempt++) {
      const gates = await env.wharf.pendingApprovals(workflowId).catch(() => []);
      const call = gates.find((gate) => gate.call !== undefined && !skip.includes(gate.call.id));
      if (call !== undefined) return call;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error('no tool call waited for an answer');
  }

  it('waits durably through a worker killed while it waits, runs an approved call once, and tells the model of a rejection', async () => {
    const runs = join(env.dir, 'shell-runs');
    const model = join(env.dir, 'ops-model.yaml');
    await writeFile(
      model,
      `replies:
  - tool_calls: [{ tool: shell, input: { command: "echo approved >> ${runs}; echo cleaned" } }]
  - tool_calls: [{ tool: shell, input: { command: "echo rejected >> ${runs}" } }]
  - tool_calls: [{ tool: shell, input: { command: "ls ${env.dir}" } }]
  - text: All clean.
`,
    );
    const { workflowId } = await env.wharf.startSwarm(
      `
name: held-calls
agents:
  ops:
    model: scripted:${model}
    tools:
      - name: shell
        approval: { prompt: Run this command?, match: { command: '>>' } }
tasks:
  clean: { agent: ops, prompt: Clean up. }
`,
      {},
      { heartbeatTimeoutMs: 2_000 },
    );
    const first = await startWorkerProcess(env, workerScript);
    const call = await heldCall(workflowId);
    expect(call).toMatchObject({
      task: 'clean',
      prompt: 'Run this command?',
      call: { tool: 'shell', workflowId: `${workflowId}/agent/clean` },
    });
    expect(call.call?.arguments).toBe(JSON.stringify({ command: `echo approved >> ${runs}; echo cleaned` }));
    // The list page tells it apart from a running swarm: WharfStatus and WharfPendingGates.
    let attributes = (await env.wharf.client.workflow.getHandle(workflowId).describe()).typedSearchAttributes;
    for (
      let attempt = 0;
      attempt < 100 && attributes.get(swarmSearchAttributes.status) !== 'waiting';
      attempt++
    ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      attributes = (await env.wharf.client.workflow.getHandle(workflowId).describe()).typedSearchAttributes;
    }
    expect(attributes.get(swarmSearchAttributes.status)).toBe('waiting');
    expect(attributes.get(swarmSearchAttributes.pendingGates)).toBe(1);

    first.kill('SIGKILL');
    await once(first, 'exit');
    // No worker: `wharf status` reads what waits from the memo, with the command that answers it.
    const status = await runWharf(['status', workflowId, '--address', env.temporal.address], env.dir);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain('held-calls: waiting · 1 waiting for approval');
    expect(status.stdout).toContain(`wharf approve ${workflowId} clean --call ${call.call?.id}`);
    expect(existsSync(runs)).toBe(false);

    const second = await startWorkerProcess(env, workerScript);
    try {
      const approved = await runWharf(
        [
          'approve',
          workflowId,
          'clean',
          '--call',
          call.call?.id ?? '',
          '--by',
          'ana',
          '--address',
          env.temporal.address,
        ],
        env.dir,
      );
      expect(approved.code, approved.stderr).toBe(0);
      expect(approved.stdout).toContain(`clean call ${call.call?.id} (shell) approved`);
      // Answered once: a second answer is refused, naming why.
      await expect(
        env.wharf.approveToolCall(workflowId, 'clean', call.call?.id ?? '', { approve: false }),
      ).rejects.toThrow(/was already approved/);

      const next = await heldCall(workflowId, [call.call?.id ?? '']);
      expect(next.call?.arguments).toContain('echo rejected');
      await env.wharf.approveToolCall(workflowId, 'clean', next.call?.id ?? '', {
        approve: false,
        comment: 'not twice',
        by: 'ana',
      });
      const result = await env.wharf.result(workflowId);
      expect(result.status).toBe('completed');
      // The approved command ran once; the rejected one never; `ls` needed no approval.
      expect((await readFile(runs, 'utf8')).trim().split('\n')).toEqual(['approved']);
      // The model was told: the rejection is the tool result in its conversation.
      const texts = await storedTexts(env.store);
      expect(
        texts.some((text) => text.includes('not run: this shell call was rejected by ana: not twice')),
      ).toBe(true);
      const done = (await env.wharf.client.workflow.getHandle(workflowId).describe()).typedSearchAttributes;
      expect(done.get(swarmSearchAttributes.pendingGates)).toBe(0);
    } finally {
      second.kill('SIGTERM');
      await once(second, 'exit');
    }
  });

  // A call nobody answers is decided by its on_timeout: timed-waits.int.test.ts.
});
