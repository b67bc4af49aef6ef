import { fileURLToPath } from 'node:url';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as activities from './greeting-activities.js';
import { connectTestEnv, type TemporalTestEnv, taskQueueFor } from './temporal-env.js';

// The template every e2e test follows: real dev server (global setup), bundled
// workflow code, a real worker, a real client.
describe('Temporal harness', () => {
  let env: TemporalTestEnv;
  beforeAll(async () => {
    env = await connectTestEnv();
  });
  afterAll(async () => {
    await env?.close();
  });

  it('runs a bundled workflow and its activity on a real worker and server', async () => {
    const taskQueue = taskQueueFor('greeting');
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowsPath: fileURLToPath(new URL('./workflows/index.ts', import.meta.url)),
      activities,
    });
    const workflowId = `greeting-${taskQueue}`;
    const result = await worker.runUntil(
      env.client.workflow.execute('greetingWorkflow', { taskQueue, workflowId, args: ['Wharf'] }),
    );
    expect(result).toBe(`Hello, Wharf, from ${taskQueue} (from workflow)`);

    // The server really recorded the run: its history holds the activity's completion.
    const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
    const completions = (history.events ?? []).filter((event) => event.activityTaskCompletedEventAttributes);
    expect(completions).toHaveLength(1);
    const description = await env.client.workflow.getHandle(workflowId).describe();
    expect(description.status.name).toBe('COMPLETED');
    expect(description.taskQueue).toBe(taskQueue);
  });
});
