import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { swarmTaskWorkflowId } from '@wharf/orchestrator';
import { safeId } from '@wharf/orchestrator/worker';
import { manifestEntries } from '@wharf/output-store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSwarmTestEnv, type SwarmTestEnv } from './swarm-env.js';
import { swarmTreeFromFiles } from './swarm-tree.js';
import { runWharf } from './wharf-cli.js';
import { startWorkerProcess, stopWorkerProcess } from './worker-process.js';

const workerScript = fileURLToPath(new URL('../fixtures/wide-worker-process.mjs', import.meta.url));
const ITEMS = 1_000;
const CONCURRENCY = 32;
// Low, so the child's fan-out crosses continue-as-new a few times, the kill among them.
const HISTORY_EVENT_LIMIT = 300;
/** How many values its `all` input (the fan-out's stored list) holds: past 64 KiB inputs come in a file. */
const countScript = [
  'if [ -n "$WHARF_INPUTS_FILE" ]; then jq ".all | length" "$WHARF_INPUTS_FILE";',
  'else printf "%s" "$WHARF_INPUTS" | jq ".all | length"; fi',
].join(' ');

// A swarm whose `swarm:` task runs a map over a stored list of 1,000 items: the child's approval
// gate is answered from the parent (`wharf approve <parent> fanout.gate`), its worker is SIGKILLed
// a third of the way through the fan-out and replaced, and every item's output is stored once;
// the parent reads the child's result and completes. A re-run from the child's last task then
// reuses the whole fan-out and runs that task alone again.
describe('a swarm: task running a 1,000-item map', () => {
  let env: SwarmTestEnv;
  let worker: ChildProcess | undefined;
  beforeAll(async () => {
    env = await createSwarmTestEnv('nested-wide');
    worker = await startWorkerProcess(env, workerScript, [String(CONCURRENCY)]);
  });
  afterAll(async () => {
    await stopWorkerProcess(worker);
    await env?.close();
  });

  it('is gated from the parent, survives a worker SIGKILL mid-child, stores each item’s output once, and re-runs from a child task', async () => {
    const ranLog = join(env.dir, 'ran.log');
    const definition = await swarmTreeFromFiles({
      'parent.yaml': `name: nested-wide
tasks:
  fanout: { swarm: ./wide.yaml, inputs: { prefix: item }, output: †data.fanout }
  after:
    depends_on: [fanout]
    inputs: { fanout: †data.fanout }
    script: { content: 'printf "%s\\n" "$WHARF_INPUTS" | jq -r ".fanout.status"' }
`,
      'wide.yaml': `name: wide
tasks:
  gate: { approval: { prompt: Start the fan-out? }, script: { content: echo go } }
  list:
    depends_on: [gate]
    inputs: { prefix: †input.prefix }
    script: { content: 'p=$(printf "%s" "$WHARF_INPUTS" | jq -r .prefix); seq 0 ${ITEMS - 1} | sed "s/^/$p-/"' }
    output: †data.list
  fan:
    depends_on: [list]
    loop: { type: map, over: †data.list }
    script: { content: 'echo "$WHARF_INSTANCE" >> ${ranLog}; printf "%s\\n" "$WHARF_INPUTS"' }
    output: †data.fan
  count:
    depends_on: [fan]
    inputs: { all: †data.fan }
    script: { content: ${JSON.stringify(countScript)} }
`,
    });
    const { workflowId } = await env.wharf.startSwarm(
      definition,
      {},
      { historyEventLimit: HISTORY_EVENT_LIMIT, maxConcurrentTasks: CONCURRENCY, heartbeatTimeoutMs: 10_000 },
    );
    const child = swarmTaskWorkflowId(workflowId, 'fanout');

    // The child's gate waits as the parent's, and the parent's command answers it.
    for (let attempt = 0; ; attempt++) {
      const pending = await env.wharf.pendingApprovals(workflowId).catch(() => []);
      if (pending.some((gate) => gate.task === 'fanout.gate')) break;
      if (attempt > 600) throw new Error('fanout.gate never waited');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const approved = await runWharf(
      ['approve', workflowId, 'fanout.gate', '--by', 'ana', '--address', env.temporal.address],
      env.dir,
    );
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout).toContain(`${workflowId}: fanout.gate approved`);

    // A third of the way through the child's fan-out, its worker is killed outright.
    let doneAtKill = 0;
    for (;;) {
      const progress = await env.wharf.progress(workflowId).catch(() => undefined);
      const fan = progress?.tasks
        .find((task) => task.task === 'fanout')
        ?.child?.tasks.find((task) => task.task === 'fan');
      doneAtKill = fan?.instances.done ?? 0;
      if (doneAtKill >= ITEMS / 3) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const killed = worker as ChildProcess;
    const exited = once(killed, 'exit');
    killed.kill('SIGKILL');
    await exited;
    worker = await startWorkerProcess(env, workerScript, [String(CONCURRENCY)]);
    console.log(`[nested-wide] worker killed with ${doneAtKill} of ${ITEMS} items done`);
    expect(doneAtKill).toBeLessThan(ITEMS);

    const text = async (outId: string | undefined) =>
      Buffer.from((await env.store.get({ outId: outId ?? '' })).body).toString('utf8');
    const result = await env.wharf.result(workflowId);
    expect(result.status).toBe('completed');
    const after = Buffer.from((await env.store.get({ outId: result.outputs.after?.[0] as string })).body);
    expect(after.toString('utf8').trim()).toBe('ok');
    const childResult = await env.wharf.result(child);
    expect(childResult.status).toBe('completed');
    expect(childResult.metrics.continuedAsNew).toBeGreaterThan(0);
    expect(childResult.tasks.find((task) => task.task === 'gate')).toMatchObject({
      status: 'done',
      approval: { decision: 'approved', by: 'ana' },
    });
    expect(childResult.tasks.find((task) => task.task === 'fan')).toMatchObject({
      status: 'done',
      instances: { done: ITEMS, total: ITEMS },
      outCount: ITEMS,
    });

    // One record per item, in order, each with one output, the output of its own item.
    const records: { instance: number; status: string; outIds: string[] }[] = [];
    // The store knows a run by its safe id (a child's workflow id holds `/`).
    const read = { scope: { ownerId: 'default', runIds: [safeId(child)] } };
    for await (const entry of manifestEntries(
      env.store,
      { outId: childResult.manifests?.fan as string },
      read,
    ))
      records.push(entry as (typeof records)[number]);
    expect(records.map((record) => record.instance)).toEqual(
      Array.from({ length: ITEMS }, (_, index) => index),
    );
    expect(records.every((record) => record.status === 'ok' && record.outIds.length === 1)).toBe(true);
    for (const index of [0, ITEMS / 2, ITEMS - 1]) {
      const body = Buffer.from((await env.store.get({ outId: records[index]?.outIds[0] as string })).body);
      expect(JSON.parse(body.toString('utf8'))).toEqual({ index, item: `item-${index}` });
    }
    // The store holds each item's stdout once: no output of the killed attempts beside the retries'.
    const stored: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await env.store.list({
        labels: { task: 'fan', stream: 'stdout' },
        limit: 1_000,
        ...(cursor === undefined ? {} : { cursor }),
      });
      for (const record of page.records)
        if (record.producer.runId === safeId(child)) stored.push(record.labels.instance ?? '');
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    expect(stored).toHaveLength(ITEMS);
    expect(new Set(stored).size).toBe(ITEMS);

    // Every item ran; only the instances in flight when the worker died ran twice.
    const ran = (await readFile(ranLog, 'utf8')).split('\n').filter(Boolean);
    const times = new Map<string, number>();
    for (const instance of ran) times.set(instance, (times.get(instance) ?? 0) + 1);
    expect(times.size).toBe(ITEMS);
    expect([...times.values()].filter((count) => count > 1).length).toBeLessThanOrEqual(CONCURRENCY);
    expect(await text(childResult.outputs.count?.[0])).toBe(`${ITEMS}\n`);

    // A re-run from the child's last task reuses the gate, the list and the whole fan-out (its
    // manifest, stored by the earlier child run) and runs count alone again.
    const rerun = await env.wharf.rerun(workflowId, { from: 'fanout.count' });
    expect(rerun.plan.reused).toEqual(['fanout.gate', 'fanout.list', 'fanout.fan']);
    expect(rerun.plan.rerun.map((entry) => entry.task)).toEqual(['fanout', 'fanout.count', 'after']);
    const again = await env.wharf.result(rerun.workflowId);
    expect(again.status).toBe('completed');
    const rerunChild = await env.wharf.result(swarmTaskWorkflowId(rerun.workflowId, 'fanout'));
    expect(rerunChild.tasks.find((task) => task.task === 'fan')).toMatchObject({
      status: 'done',
      instances: { done: ITEMS, total: ITEMS },
    });
    expect(await text(rerunChild.outputs.count?.[0])).toBe(`${ITEMS}\n`);
    expect((await readFile(ranLog, 'utf8')).split('\n').filter(Boolean)).toHaveLength(ran.length);
  }, 600_000);
});
