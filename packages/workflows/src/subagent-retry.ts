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
