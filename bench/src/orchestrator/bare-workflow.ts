// The orchestrator benchmark's information row: a workflow that forks the worker per script (the
// same scripts as plain activities, each started by the worker itself; no channels, no context,
// no store). Runs in the Temporal sandbox.
import { continueAsNew, proxyActivities } from '@temporalio/workflow';
import type * as activities from './bare-activities.js';

const { runScript } = proxyActivities<typeof activities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 3 },
});

/**
 * Activities a run schedules at once: Temporal refuses more than 2,000 pending activities in one
 * workflow, and a run of 2,000 keeps its history well under the event limit.
 */
const PER_RUN = 2_000;

/**
 * Runs `count` copies of `command` as activities, up to 2,000 at once in each run of a
 * continue-as-new chain, and returns their outputs' sizes added up.
 */
export async function bareWorkflow(command: string, count: number, done = 0, bytes = 0): Promise<number> {
  const batch = Math.min(count - done, PER_RUN);
  const outputs = await Promise.all(Array.from({ length: batch }, () => runScript(command)));
  const total = bytes + outputs.reduce((sum, output) => sum + output.length, 0);
  if (done + batch < count) return continueAsNew<typeof bareWorkflow>(command, count, done + batch, total);
  return total;
}
