import { parseSwarm } from '@wharf/orchestrator';
import { runChainHistory } from '@wharf/orchestrator/client';
import { manifestRefs } from '@wharf/output-store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countRefsScript } from './count-refs-script.js';
import { createSwarmTestEnv, replayRunChain, type SwarmTestEnv } from './swarm-env.js';

// Enough instances to pass the 64 out ids a result lists inline and, with the low event limit
// below, to cut the loop's superstep across several runs: width, not count, is what is tested.
const INSTANCES = 300;
const MIB = 1024 * 1024;

// A loop wider than one run's history can hold: the superstep is split across runs, the
// carried state is offloaded to the output store, and the join still sees every ref.
describe('a wide loop superstep spans continue-as-new runs', () => {
  let env: SwarmTestEnv;
  beforeAll(async () => {
    env = await createSwarmTestEnv('wide-superstep');
  });
  afterAll(async () => {
    await env?.close();
  });

  it(`${INSTANCES} loop instances and a join complete; every run stays under 4 MiB, every payload under 256 KiB`, async () => {
    const definition = parseSwarm(`
name: wide
tasks:
  fan:
    loop: { type: repeat, count: ${INSTANCES} }
    script: { content: 'echo "instance $WHARF_INSTANCE"' }
    output: †data.fan
  join:
    depends_on: [fan]
    script: { content: ${JSON.stringify(countRefsScript)} }
`);
    // A low event limit stands in for Temporal's 4 MiB suggestion: the loop must cut runs.
    const { workflowId, firstExecutionRunId } = await env.wharf.startSwarm(
      definition,
      {},
      { historyEventLimit: 200, maxConcurrentTasks: 32 },
    );
    const result = await env.withWorker(() => env.wharf.result(workflowId));
    expect(result.status).toBe('completed');
    // Past 64 out ids a loop lists them in its stored manifest only: the result stays small.
    expect(result.outputs.fan).toEqual([]);
    const outIds = await manifestRefs(env.store, { outId: result.manifests?.fan as string });
    expect(outIds).toHaveLength(INSTANCES);
    expect(new Set(outIds).size).toBe(INSTANCES);
    const fan = result.tasks.find((task) => task.task === 'fan');
    expect(fan?.instances).toEqual({ done: INSTANCES, total: INSTANCES });
    expect(fan?.status).toBe('done');
    expect(result.metrics.continuedAsNew).toBeGreaterThanOrEqual(2);

    const joinOut = result.outputs.join?.[0] as string;
    const seen = Buffer.from((await env.store.get({ outId: joinOut })).body).toString('utf8');
    expect(Number(seen.trim())).toBe(INSTANCES);

    const runs = await runChainHistory(env.temporal.client, workflowId, firstExecutionRunId);
    expect(runs).toHaveLength(result.metrics.continuedAsNew + 1);
    const total = runs.reduce((sum, run) => sum + run.historyBytes, 0);
    console.log(
      `[wide-superstep] ${runs.length} runs, ${total} history bytes (${(total / INSTANCES).toFixed(0)} per subagent), largest run ${Math.max(...runs.map((run) => run.historyBytes))} B, largest payload ${Math.max(...runs.map((run) => run.largestPayloadBytes))} B`,
    );
    for (const run of runs) {
      expect(run.historyBytes).toBeLessThan(4 * MIB);
      expect(run.largestPayloadBytes).toBeLessThan(256 * 1024);
    }

    // Every run, cut in the middle of the loop or not, replays deterministically.
    expect(await replayRunChain(env, workflowId, runs)).toEqual([]);
  }, 240_000);
});
