// The activities the swarm workflow schedules, with their timeouts and retries, and how their
// failures read. Deterministic: proxies only record commands when called.
import {
  ActivityFailure,
  ChildWorkflowFailure,
  type LocalActivityOptions,
  proxyActivities,
  proxyLocalActivities,
} from '@temporalio/workflow';
import type { WharfActivities } from '@wharf/swarm';
import { scriptRetryPolicy } from './subagent-retry.js';

/**
 * `runSubagent` (a script task): a long activity that heartbeats, retried a bounded number of
 * times, through an infrastructure outage of a couple of minutes ({@link scriptRetryPolicy}).
 *
 * @example
 * ```ts
 * const result = await runSubagent.executeWithOptions(call.options, [call.input]);
 * ```
 */
export const { runSubagent } = proxyActivities<WharfActivities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '20 seconds',
  retry: scriptRetryPolicy,
});

/**
 * The options of the swarm's local activities (also given again with a call's own summary).
 *
 * @example
 * ```ts
 * await contextMetrics.executeWithOptions({ ...localActivityOptions(), summary }, [input]);
 * ```
 */
export function localActivityOptions(): LocalActivityOptions {
  return { startToCloseTimeout: '1 minute', retry: { maximumAttempts: 3 } };
}

/**
 * `indexItems` reads a map loop's stored list once (it may be large: it heartbeats) and stores
 * the index its instances read their items through.
 *
 * @example
 * ```ts
 * const items = await indexItems({ workflowId, ownerId, task: 'lint', source: 'out_…', maxItems: 1e6 });
 * ```
 */
export const { indexItems } = proxyActivities<WharfActivities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '1 minute',
  retry: scriptRetryPolicy,
});

/**
 * `writeManifestPart` stores a chunk of a loop's instance records (or its manifest), and
 * `storeSubagentDefinition` what a script task's instances share, next to the workflow: their
 * input (thousands of records, a task's script) stays out of history; only the out id is recorded.
 * A store that does not answer is asked again for up to ten minutes.
 *
 * @example
 * ```ts
 * const outId = await writeManifestPart({ workflowId, ownerId, task: 'fan', part: 'chunk', seq: 0, entries });
 * ```
 */
export const { writeManifestPart, storeSubagentDefinition } = proxyLocalActivities<WharfActivities>({
  startToCloseTimeout: '1 minute',
  scheduleToCloseTimeout: '10 minutes',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

/**
 * Context choice, pruning and metrics run stdio-limits' rules on metadata next to the workflow:
 * their (large) input stays out of history, only their small results are recorded.
 *
 * @example
 * ```ts
 * const plans = await planContext({ definition, pool, tasks, now });
 * ```
 */
export const { planContext, pruneContext, contextMetrics } = proxyLocalActivities<WharfActivities>(
  localActivityOptions(),
);

/**
 * The message of an activity's failure (its cause), or of any other error.
 *
 * @example
 * ```ts
 * const message = failureMessage(error); // "exit code 2", not "Activity task failed"
 * ```
 */
export function failureMessage(error: unknown): string {
  // An agent task's child workflow failed (its agentStart refused the task): say why.
  let cause = error;
  while (
    (cause instanceof ActivityFailure || cause instanceof ChildWorkflowFailure) &&
    cause.cause !== undefined
  ) {
    cause = cause.cause;
  }
  return (cause as Error).message;
}
