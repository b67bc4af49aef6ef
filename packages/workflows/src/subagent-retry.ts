// Workflow-safe: the retry policy of the activities that run subagents and their steps.
import type { RetryPolicy } from '@temporalio/workflow';
import { nonRetryableFailureTypes } from '@wharf/swarm';

/**
 * How `runSubagent` and the agent step activities retry: backing off from 1 s to
 * 30 s, at most 4 attempts (bounded: since SDK 1.21 an oversized result fails with a retryable
 * error; never loop on it), never on a Wharf failure that no retry can mend.
 *
 * @example
 * ```ts
 * proxyActivities<WharfActivities>({ startToCloseTimeout: '30 minutes', retry: subagentRetryPolicy });
 * ```
 */
export const subagentRetryPolicy: RetryPolicy = {
  initialInterval: '1 second',
  backoffCoefficient: 2,
  maximumInterval: '30 seconds',
  maximumAttempts: 4,
  nonRetryableErrorTypes: [...nonRetryableFailureTypes],
};

/**
 * How `runSubagent` (a script task) and `indexItems` retry: as {@link subagentRetryPolicy}, for
 * up to 10 attempts. A script's exit status is its result, never a retry: what fails its activity
 * is the infrastructure (the data plane, the Temporal server, a worker's disk or the worker
 * itself), whose outages last tens of seconds. Four attempts span 7 s of backoff and a 20 s
 * PostgreSQL restart failed swarms; ten span about 2.5 minutes (1 + 2 + 4 + 8 + 16 + 30 × 4 s).
 * Still bounded: an oversized result cannot loop.
 *
 * @example
 * ```ts
 * proxyActivities<WharfActivities>({ startToCloseTimeout: '30 minutes', retry: scriptRetryPolicy });
 * ```
 */
export const scriptRetryPolicy: RetryPolicy = { ...subagentRetryPolicy, maximumAttempts: 10 };
