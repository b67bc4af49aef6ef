import { fileURLToPath } from 'node:url';
import { Client } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { createWharfDataConverter } from '@wharf/orchestrator/node';
import { InMemoryOutputStore } from '@wharf/output-store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTestEnv, type TemporalTestEnv, taskQueueFor } from './temporal-env.js';

// A workflow input far above Temporal's 2 MiB payload limit travels through the output
// store: history holds a small claim, the workflow sees the whole value.
describe('External Storage driver backed by an OutputStore', () => {
  let env: TemporalTestEnv;
  beforeAll(async () => {
    env = await connectTestEnv();
  });
  afterAll(async () => {
    await env?.close();
  });

  it('offloads a 5 MB workflow input and keeps history small', async () => {
    const store = new InMemoryOutputStore();
    const dataConverter = createWharfDataConverter({ store });
    const client = new Client({ connection: env.client.connection, dataConverter });
    const taskQueue = taskQueueFor('external-storage');
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowsPath: fileURLToPath(new URL('./workflows/index.ts', import.meta.url)),
      dataConverter,
    });
    const big = `${'start'.padEnd(5 * 1024 * 1024, 'x')}finished`;
    const workflowId = `external-storage-${taskQueue}`;
    const result = await worker.runUntil(
      client.workflow.execute('payloadSizeWorkflow', { taskQueue, workflowId, args: [big] }),
    );
    expect(result).toEqual({ length: big.length, head: 'startxxx', tail: 'finished' });

    const page = await store.list({ labels: { kind: 'temporal-payload' } });
    expect(page.records.length).toBeGreaterThanOrEqual(1);
    expect(Math.max(...page.records.map((record) => record.sizeBytes))).toBeGreaterThan(5 * 1024 * 1024);

    // What the server holds: the whole history, input included, stays tiny.
    const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
    const historyBytes = JSON.stringify(history).length;
    expect(historyBytes).toBeLessThan(64 * 1024);
  });
});
