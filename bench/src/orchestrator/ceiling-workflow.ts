// The engine's own limit for `orchestrator-peers`: N activities that do nothing, kept in flight
// and continued as new the way a Wharf swarm does it. Runs in the Temporal sandbox.
import { continueAsNew, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type * as activities from './ceiling-activities.js';

// A Wharf script activity's timeouts.
const { noop } = proxyActivities<typeof activities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '20 seconds',
});

/**
 * Runs `count` no-op activities, `inFlight` at a time (a swarm's `maxConcurrentTasks`); once a
 * run's history reaches `historyEventLimit` events it lets the activities in flight finish and
 * continues as new with what is left (a swarm's `historyEventLimit`). Returns the activities run.
 */
export async function ceilingWorkflow(
  count: number,
  inFlight: number,
  historyEventLimit: number,
  done = 0,
): Promise<number> {
  let next = done;
  const lane = async () => {
    while (next < count && workflowInfo().historyLength < historyEventLimit) {
      next++;
      await noop();
    }
  };
  await Promise.all(Array.from({ length: inFlight }, lane));
  if (next < count) return continueAsNew<typeof ceilingWorkflow>(count, inFlight, historyEventLimit, next);
  return next;
}
