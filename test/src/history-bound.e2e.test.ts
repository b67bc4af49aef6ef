import { fileURLToPath } from 'node:url';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { parseSwarm } from '@wharf/orchestrator';
import { manifestRefs } from '@wharf/output-store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as naiveActivities from './naive-activities.js';
import { createSwarmTestEnv, type SwarmTestEnv } from './swarm-env.js';
import { taskQueueFor } from './temporal-env.js';

const SUBAGENTS = 100;
const BYTES = 3_000_000;
const command = `echo "subagent $WHARF_INSTANCE"; head -c ${BYTES} /dev/zero | tr '\\000' 'y'`;

function historyBytes(history: temporal.api.history.v1.IHistory): number {
  return temporal.api.history.v1.History.encode(history).finish().length;
}

describe('history stays bounded whatever the output size', () => {
  let env: SwarmTestEnv;
  beforeAll(async () => {
    env = await createSwarmTestEnv('history-bound');
  });
  afterAll(async () => {
    await env?.close();
  });

  it(`${SUBAGENTS} subagents printing 3 MB each complete; history stays under 4 KB per subagent`, async () => {
    const definition = parseSwarm(`
name: history-bound
tasks:
  print:
    loop: { type: repeat, count: ${SUBAGENTS} }
    script: { content: ${JSON.stringify(command)} }
`);
    const { workflowId } = await env.wharf.startSwarm(definition);
    const result = await env.withWorker(() => env.wharf.result(workflowId));
    expect(result.status).toBe('completed');
    // A loop of more than 64 out ids lists them in its stored manifest, not in the result.
    const outIds = await manifestRefs(
      env.store,
      { outId: result.manifests?.print as string },
      { scope: { ownerId: 'default', runIds: [workflowId] } },
    );
    expect(outIds).toHaveLength(SUBAGENTS);
    const expectedBytes = Array.from(
      { length: SUBAGENTS },
      (_, index) => BYTES + `subagent ${index}\n`.length,
    );
    expect(result.metrics.totalBytes).toBe(expectedBytes.reduce((sum, bytes) => sum + bytes, 0));

    // Every body is in the store whole (spot-check size and head of a few).
    for (const index of [0, 42, SUBAGENTS - 1]) {
      const outId = outIds[index] as string;
      const record = await env.store.stat({ outId });
      expect(record.sizeBytes).toBe(BYTES + `subagent ${index}\n`.length);
    }

    const history = await env.temporal.client.workflow.getHandle(workflowId).fetchHistory();
    const perSubagent = historyBytes(history) / SUBAGENTS;
    console.log(
      `[history-bound] ${historyBytes(history)} history bytes, ${perSubagent.toFixed(0)} per subagent`,
    );
    expect(perSubagent).toBeLessThan(4096);
  });

  it('the same swarm written naively (activities return their stdout) fails on the payload limit', async () => {
    const taskQueue = taskQueueFor('naive');
    const worker = await Worker.create({
      connection: env.temporal.nativeConnection,
      taskQueue,
      workflowsPath: fileURLToPath(new URL('./workflows/index.ts', import.meta.url)),
      activities: naiveActivities,
    });
    const outcome = await worker.runUntil(
      env.temporal.client.workflow
        .execute('naiveSwarmWorkflow', {
          taskQueue,
          workflowId: `naive-${taskQueue}`,
          args: [command.replace('$WHARF_INSTANCE', '0'), 3],
          workflowExecutionTimeout: '2 minutes',
        })
        .then(
          () => 'completed',
          (error: Error) =>
            `${error.message} ${String((error.cause as Error | undefined)?.message ?? '')} ${String(((error.cause as Error | undefined)?.cause as Error | undefined)?.message ?? '')}`,
        ),
    );
    expect(outcome).not.toBe('completed');
    expect(outcome.toLowerCase()).toMatch(/size|limit|too large|exceed/);
  });
});
