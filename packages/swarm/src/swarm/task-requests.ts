// Pure: what a person asks of one task of a running swarm (the `cancelTask` and `approveTask`
// updates), as task events through the task board's one transition function.

import type { ApproveTaskRequest, ApproveTaskResult } from '../contracts/handler-contracts.js';
import type { TaskStatus } from '../contracts/progress-contracts.js';
import { WharfOrchestratorError } from '../orchestrator-error.js';
import { type SwarmState, taskSpec } from './swarm-state.js';
import type { TaskEvent } from './task-state.js';

/**
 * Cancels a task that has not finished: it reads `cancelled`, its instances still to start do
 * not, and its dependents are skipped. A finished task stays as it is.
 *
 * @example
 * ```ts
 * cancelTask(state, 'fan', 'not needed', now); // { cancelled: true, status: 'cancelled' }
 * ```
 */
export function cancelTask(
  state: SwarmState,
  task: string,
  reason: string | undefined,
  now: number,
): { cancelled: boolean; status: TaskStatus } {
  const before = state.tasks.get(task).status;
  const { status } = state.tasks.apply(task, { type: 'cancel', reason }, now);
  return { cancelled: status !== before, status };
}

/**
 * Throws a typed error (code `INVALID_REQUEST`) naming why `request` cannot answer a gate: an
 * unknown task, one without `approval:`, one already finished or already answered.
 *
 * @example
 * ```ts
 * checkApproval(state, { task: 'deploy', approve: true }); // throws when deploy has no gate
 * ```
 */
export function checkApproval(state: SwarmState, request: ApproveTaskRequest): void {
  // Whether an answer is refused does not depend on the time.
  state.tasks.check(request.task, answerEvent(state, request), 0);
}

/**
 * Answers a task's gate (see {@link checkApproval}): approved, it runs at the next step;
 * rejected, it is skipped or failed at once (its `on_reject`) with the answer as its reason.
 *
 * @example
 * ```ts
 * answerTaskApproval(state, { task: 'deploy', approve: false, comment: 'not today' }, now).status; // 'skipped'
 * ```
 */
export function answerTaskApproval(
  state: SwarmState,
  request: ApproveTaskRequest,
  now: number,
): ApproveTaskResult {
  const entry = state.tasks.apply(request.task, answerEvent(state, request), now);
  return {
    task: request.task,
    decision: entry.approval?.decision ?? (request.approve ? 'approved' : 'rejected'),
    status: entry.status,
  };
}

/** The answer to a task's gate as a task event; a typed error for a task without one. */
function answerEvent(state: SwarmState, request: ApproveTaskRequest): TaskEvent {
  const gate = taskSpec(state, request.task).approval;
  if (gate === undefined)
    throw new WharfOrchestratorError('INVALID_REQUEST', `task ${request.task} has no approval gate`);
  return { type: 'answer', gate, request };
}
