// The naive way, for comparison: an activity hands its whole stdout back through history.
import { proxyActivities } from '@temporalio/workflow';
import type * as activities from '../naive-activities.js';

const { runAndReturnStdout } = proxyActivities<typeof activities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 1 },
});

/** Runs `count` commands and returns their stdout lengths — through history. */
export async function naiveSwarmWorkflow(command: string, count: number): Promise<number[]> {
  const outputs = await Promise.all(Array.from({ length: count }, () => runAndReturnStdout(command)));
  return outputs.map((output) => output.length);
}
