// The engine's own limit for `orchestrator-peers`: N activities kept in flight and continued as
// new the way a Wharf swarm does it, each doing nothing or running the item's script. Runs in the
// Temporal sandbox.
import { continueAsNew, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { CeilingActivities } from './ceiling-activities.js';

// A Wharf script activity's timeouts.
const { noop, script } = proxyActivities<CeilingActivities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '20 seconds',
});

/** What {@link ceilingWorkflow} runs. */
export interface CeilingRun {
  count: number;
  /** Activities in flight (a swarm's `maxConcurrentTasks`). */
  inFlight: number;
  /** Events a run holds before it continues as new (a swarm's `historyEventLimit`). */
  historyEventLimit: number;
  /** `noop`: activities that do nothing; `script`: each runs the item's script. */
  work: 'noop' | 'script';
  /** Activities the runs before this one ran. */
  done?: number;
}

/**
 * Runs `count` activities, `inFlight` at a time; once a run's history reaches
 * `historyEventLimit` events it lets the activities in flight finish and continues as new with
 * what is left. Returns the activities run.
 */
export async function ceilingWorkflow(run: CeilingRun): Promise<number> {
  let next = run.done ?? 0;
  const lane = async () => {
    while (next < run.count && workflowInfo().historyLength < run.historyEventLimit) {
      const instance = next++;
      if (run.work === 'script') await script(instance);
      else await noop();
    }
  };
  await Promise.all(Array.from({ length: run.inFlight }, lane));
  if (next < run.count) return continueAsNew<typeof ceilingWorkflow>({ ...run, done: next });
  return next;
}
