// How a finished swarm run ends its workflow: the memo of its outcome, and the failure of a
// failed swarm. Deterministic.
import { ApplicationFailure, patched, upsertMemo, workflowInfo } from '@temporalio/workflow';
import type { SwarmDefinition, SwarmResult } from '@wharf/swarm';
import {
  describeSwarmFailure,
  finalReport,
  isTaskFailure,
  swarmFailedErrorType,
  taskCounts,
} from '@wharf/swarm';
import { MEMO_TASK_COUNTS } from './swarm-visibility.js';

/**
 * Records the outcome in the memo (`status`, `failedTasks`, `taskCounts`, and `report`: the final table as
 * lines, failures first with their reasons, the out ids and the commands that read them, so the
 * Web UI shows it with no worker running) and returns the result; a failed
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
    report: finalReport(result, workflowInfo().workflowId),
    ...(patched(MEMO_TASK_COUNTS) ? { taskCounts: taskCounts(result.tasks) } : {}),
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
