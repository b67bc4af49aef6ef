import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { swarmTaskWorkflowId } from '@wharf/orchestrator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSwarmTestEnv, type SwarmTestEnv } from './swarm-env.js';
import { swarmTreeFromFiles } from './swarm-tree.js';

// A re-run from a task inside a `swarm:` task's child run (`rerun --from notes.s1`): the parent
// reuses its tasks upstream of the swarm: task, the swarm: task runs a child that re-runs the
// earlier child run from s1 (reusing s0, its preview read on as before), and what depends on
// the swarm: task runs again.

describe('wharf rerun --from <swarm task>.<inner task>', () => {
  let env: SwarmTestEnv;
  beforeAll(async () => {
    env = await createSwarmTestEnv('nested-rerun');
  });
  afterAll(async () => {
    await env?.close();
  });

  it('re-runs the child run from the inner task, reusing the rest of it and of the parent', async () => {
    const log = join(env.dir, 'ran.log');
    const read = (key: string) => `$(printf "%s" "$WHARF_INPUTS" | jq -r .${key} | tr -d "\\n")`;
    const definition = await swarmTreeFromFiles({
      'parent.yaml': `name: parent
tasks:
  version: { script: { content: 'echo version >> ${log}; echo 2.4.0' }, output: †data.version }
  notes:
    depends_on: [version]
    swarm: ./notes.yaml
    inputs: { version: †data.version.preview }
    output: †data.notes
  announce:
    depends_on: [notes]
    inputs: { notes: †data.notes.preview }
    script: { content: 'echo announce >> ${log}; echo "announce: ${read('notes')}"' }
`,
      'notes.yaml': `name: notes
tasks:
  s0:
    inputs: { version: †input.version }
    script: { content: 'echo s0 >> ${log}; echo "v${read('version')}"' }
    output: †data.s0
  s1:
    depends_on: [s0]
    inputs: { prev: †data.s0.preview }
    script: { content: 'echo s1 >> ${log}; echo "s1 saw ${read('prev')}"' }
    output: †data.s1
  s2:
    depends_on: [s1]
    inputs: { prev: †data.s1.preview }
    script: { content: 'echo s2 >> ${log}; echo "s2 saw ${read('prev')}"' }
`,
    });
    const text = async (outId: string | undefined) =>
      Buffer.from((await env.store.get({ outId: outId ?? '' })).body).toString();
    const ran = async () => (await readFile(log, 'utf8')).trim().split('\n');

    const { workflowId } = await env.wharf.startSwarm(definition, {});
    const first = await env.withWorker(() => env.wharf.result(workflowId));
    expect(first.status).toBe('completed');
    expect(await text(first.outputs.announce?.[0])).toBe('announce: s2 saw s1 saw v2.4.0\n');
    expect(await ran()).toEqual(['version', 's0', 's1', 's2', 'announce']);

    const rerun = await env.wharf.rerun(workflowId, { from: 'notes.s1' });
    expect(rerun.plan.reused).toEqual(['version', 'notes.s0']);
    expect(rerun.plan.rerun).toEqual([
      { task: 'notes', reason: 'its swarm runs again from s1' },
      { task: 'notes.s1', reason: 'named by --from' },
      { task: 'notes.s2', reason: 'depends on s1' },
      { task: 'announce', reason: 'depends on notes' },
    ]);
    const second = await env.withWorker(() => env.wharf.result(rerun.workflowId));
    expect(second.status).toBe('completed');
    expect(await text(second.outputs.announce?.[0])).toBe('announce: s2 saw s1 saw v2.4.0\n');
    // Only s1, s2 and announce ran again; version and s0 reused what the first runs stored.
    expect((await ran()).slice(5)).toEqual(['s1', 's2', 'announce']);
    expect(second.outputs.version).toEqual(first.outputs.version);
    const firstChild = await env.wharf.result(swarmTaskWorkflowId(workflowId, 'notes'));
    const child = await env.wharf.result(swarmTaskWorkflowId(rerun.workflowId, 'notes'));
    expect(child.outputs.s0).toEqual(firstChild.outputs.s0);
    expect(child.tasks.find((task) => task.task === 's0')).toMatchObject({ status: 'done', reused: 1 });
    expect(child.outputs.s1).not.toEqual(firstChild.outputs.s1);
    // The child run names the child run it re-runs, as a re-run does.
    const memo = (
      await env.wharf.client.workflow.getHandle(swarmTaskWorkflowId(rerun.workflowId, 'notes')).describe()
    ).memo;
    expect(memo?.rerunOf).toMatchObject({ workflowId: swarmTaskWorkflowId(workflowId, 'notes'), from: 's1' });

    // A task that is not a swarm: task, or no such child task, is refused naming why.
    await expect(env.wharf.rerun(workflowId, { from: 'version.s1' })).rejects.toThrow(
      /version is not a swarm: task/,
    );
    await expect(env.wharf.rerun(workflowId, { from: 'notes.nope' })).rejects.toThrow(
      /cannot re-run from "nope": the swarm has no such task; tasks: s0, s1, s2/,
    );
  });
});
