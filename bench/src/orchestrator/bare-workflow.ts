// Baseline workflow for the orchestrator benchmark: the same scripts as plain activities,
// no channels, no context, no store. Runs in the Temporal sandbox.
import { proxyActivities } from '@temporalio/workflow';
import type * as activities from './bare-activities.js';

const { runScript } = proxyActivities<typeof activities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 3 },
});

/** Runs `count` copies of `command` as activities in parallel and returns their outputs' sizes. */
export async function bareWorkflow(command: string, count: number): Promise<number> {
  const outputs = await Promise.all(Array.from({ length: count }, () => runScript(command)));
  return outputs.reduce((sum, output) => sum + output.length, 0);
}
