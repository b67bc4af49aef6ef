// How a finished swarm run ends its workflow: the memo of its outcome, and the failure of a
// failed swarm. Deterministic.
import { ApplicationFailure, upsertMemo } from '@temporalio/workflow';
import { describeSwarmFailure, isTaskFailure, swarmFailedErrorType } from '../shared/swarm-failure.js';
import type { SwarmDefinition } from '../shared/swarm-schema.js';
import type { SwarmResult } from '../shared/types.js';

/**
 * Records the outcome in the memo (`status`, `failedTasks`) and returns the result; a failed
 * swarm instead throws a non-retryable `WharfSwarmFailed` failure whose details hold the whole
 * result, unless the definition says `on_failure: complete`. A failed workflow is what the Web
 * UI, its Failures filter and visibility show as failed; `WharfClient.result` returns the
 * result from the failure's details.
 *
 * @example
 * ```ts
 * return endSwarm(ending.result, definition);
 * ```
 */
export function endSwarm(result: SwarmResult, definition: SwarmDefinition): SwarmResult {
  upsertMemo({
    status: result.status,
    failedTasks: result.tasks.filter(isTaskFailure).map((task) => task.task),
  });
  if (result.status === 'failed' && definition.on_failure !== 'complete') {
    throw ApplicationFailure.create({
      type: swarmFailedErrorType,
      message: describeSwarmFailure(result),
      nonRetryable: true,
      details: [result],
    });
  }
  return result;
}
