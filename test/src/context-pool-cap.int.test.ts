import { defaultPayloadConverter } from '@temporalio/common';
import { runChainHistory } from '@wharf/orchestrator/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSwarmTestEnv, type SwarmTestEnv } from './swarm-env.js';

const CAP = 5;
const INSTANCES = 16;

// A swarm with more outputs than its pool cap, cut into several runs by a low history bound:
// it completes, and the pool each run carries over continue-as-new holds at most CAP entries.
describe('the context pool stays within its cap across continue-as-new', () => {
  let env: SwarmTestEnv;
  beforeAll(async () => {
    env = await createSwarmTestEnv('context-pool-cap');
  });
  afterAll(async () => {
    await env?.close();
  });

  it(`${INSTANCES} outputs under a cap of ${CAP}: the swarm completes and every carried pool is ≤ ${CAP}`, async () => {
    const { workflowId, firstExecutionRunId } = await env.wharf.startSwarm(
      `
name: capped
tasks:
  fan:
    loop: { type: repeat, count: ${INSTANCES} }
    script: { content: 'echo "instance $WHARF_INSTANCE"' }
    output: †data.fan
  join:
    depends_on: [fan]
    inputs: { fan: †data.fan }
    script: { content: 'echo joined' }
`,
      {},
      { historyEventLimit: 40, maxConcurrentTasks: 4, contextPoolCap: CAP },
    );
    const result = await env.withWorker(() => env.wharf.result(workflowId));
    expect(result.status).toBe('completed');
    expect(new Set(result.outputs.fan).size).toBe(INSTANCES);
    expect(result.outputs.join).toHaveLength(1);
    // How many cuts depends on how the server batches completions into workflow tasks (fewer
    // events per step on a busy machine): at least one, each checked below.
    expect(result.metrics.continuedAsNew).toBeGreaterThanOrEqual(1);

    const runs = await runChainHistory(env.temporal.client, workflowId, firstExecutionRunId);
    const carried: number[] = [];
    for (const run of runs.slice(1)) {
      const history = await env.temporal.client.workflow.getHandle(workflowId, run.runId).fetchHistory();
      const payload = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
      const input = defaultPayloadConverter.fromPayload<{
        carried?: { contextPool?: { entries: unknown[]; added: number } };
      }>(payload ?? {});
      carried.push(input.carried?.contextPool?.entries.length ?? -1);
      // Every fan instance and the join add one output each; a run may be cut after the join.
      expect(input.carried?.contextPool?.added ?? 0).toBeLessThanOrEqual(INSTANCES + 1);
    }
    expect(carried).toHaveLength(result.metrics.continuedAsNew);
    expect(Math.max(...carried)).toBeLessThanOrEqual(CAP);
    // More outputs than the cap were folded before the last cut: the cap, not the swarm, bounded it.
    expect(carried.at(-1)).toBe(CAP);
  }, 180_000);
});
