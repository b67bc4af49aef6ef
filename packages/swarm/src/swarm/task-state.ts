// Pure: the lifecycle of one task as a single transition function. Runs inside the workflow
// sandbox; every time is a parameter.
import { answerApproval, approvalVerdict, openApproval } from '../approvals/approval-gate.js';
import type { MapItems } from '../contracts/data-plane-contracts.js';
import type { ApproveTaskRequest } from '../contracts/handler-contracts.js';
import type { TaskState } from '../contracts/progress-contracts.js';
import type { ApprovalDefinition } from '../contracts/swarm-schema.js';
import { isFinished, isOpen } from '../contracts/task-status.js';
import { WharfOrchestratorError } from '../orchestrator-error.js';

/**
 * Everything that happens to a task, in the closed vocabulary of {@link nextTaskState}:
 * - `wait`: its dependencies arrived, but inputs (or a `when:` reference) are missing;
 * - `gate`: it could run, but its `approval:` gate opens and holds it;
 * - `answer`: someone approved or rejected its gate (a rejection ends it at once);
 * - `expire`: the workflow clock passed its gate's deadline (its `on_timeout` decides);
 * - `items`: its map loop's stored list was indexed (or could not be), before it starts;
 * - `start`: its instances are scheduled (`total`: a map loop's instance count);
 * - `instance-failed`: one of its instances failed (it reads `failed` from now on);
 * - `end`: its last instance folded (a running task is done);
 * - `skip`, `fail`: it will never run (an untaken branch, a map loop over no list, …);
 * - `unresolved`: nothing can run and nobody will write what it waits for;
 * - `cancel`: someone cancelled it (a finished task stays as it is).
 */
export type TaskEvent =
  | { type: 'wait'; waitingFor: string[] }
  | { type: 'gate'; gate: ApprovalDefinition }
  | { type: 'answer'; gate: ApprovalDefinition; request: ApproveTaskRequest }
  | { type: 'expire'; gate: ApprovalDefinition }
  | { type: 'items'; items: MapItems }
  | { type: 'start'; total?: number }
  | { type: 'instance-failed'; reason: string }
  | { type: 'end' }
  | { type: 'skip'; reason: string }
  | { type: 'fail'; reason: string }
  | { type: 'unresolved' }
  | { type: 'cancel'; reason?: string | undefined };

/** One event for one task, as planning and folding hand them to the task board. */
export interface TaskTransition {
  task: string;
  event: TaskEvent;
}

/** Where every task starts. */
export const PENDING_TASK: Readonly<TaskState> = Object.freeze({ status: 'pending', waitingFor: [] });

/**
 * The task's state after `event` at `now`. Pure: `state` is not changed. An event that makes
 * no sense in the task's status (starting a finished task, answering a gate twice) is a typed
 * error (code `INVALID_REQUEST`) naming the task; cancelling a finished task changes nothing.
 *
 * @example
 * ```ts
 * const running = nextTaskState('fetch', PENDING_TASK, { type: 'start' }, 1_000);
 * nextTaskState('fetch', running, { type: 'end' }, 2_000); // { status: 'done', startedAt: 1000, endedAt: 2000, … }
 * ```
 */
export function nextTaskState(task: string, state: TaskState, event: TaskEvent, now: number): TaskState {
  switch (event.type) {
    case 'wait':
      requireOpen(task, state, event);
      return { ...state, status: 'waiting', waitingFor: [...event.waitingFor] };
    case 'gate':
      requireOpen(task, state, event);
      return {
        ...state,
        status: 'waiting',
        waitingFor: ['approval'],
        approval: openApproval(event.gate, state.approval, now),
      };
    case 'answer': {
      if (isFinished(state.status))
        throw new WharfOrchestratorError('INVALID_REQUEST', `task ${task} already ${state.status}`);
      if (state.approval?.decision !== undefined)
        throw new WharfOrchestratorError(
          'INVALID_REQUEST',
          `task ${task} was already ${state.approval.decision}`,
        );
      const answered = answerApproval(state.approval, event.request, now);
      if ('refused' in answered) throw new WharfOrchestratorError('INVALID_REQUEST', answered.refused);
      return decideGate(event.gate, { ...state, approval: answered }, now);
    }
    case 'expire':
      // A cancelled task keeps its status, but its gate still records the timeout.
      if (state.approval?.deadline === undefined || state.approval.decision !== undefined) return state;
      return decideGate(event.gate, state, now);
    case 'items':
      requireOpen(task, state, event);
      return { ...state, items: { ...event.items } };
    case 'start':
      requireOpen(task, state, event);
      return {
        ...state,
        status: 'running',
        waitingFor: [],
        startedAt: now,
        ...(event.total === undefined ? {} : { total: event.total }),
      };
    case 'instance-failed':
      requireStarted(task, state, event);
      return state.status === 'cancelled' ? state : { ...state, status: 'failed', reason: event.reason };
    case 'end':
      requireStarted(task, state, event);
      return { ...state, status: state.status === 'running' ? 'done' : state.status, endedAt: now };
    case 'skip':
    case 'fail':
      requireOpen(task, state, event);
      return ended(state, event.type === 'skip' ? 'skipped' : 'failed', event.reason, now);
    case 'unresolved':
      requireOpen(task, state, event);
      return {
        ...state,
        status: 'failed',
        reason: `inputs never resolved: ${state.waitingFor.join(', ')}`,
        endedAt: now,
      };
    case 'cancel':
      if (isFinished(state.status)) return state;
      return { ...state, status: 'cancelled', reason: event.reason ?? 'cancelled by request', endedAt: now };
  }
}

/** Applies a gate's verdict at `now`: a rejection ends an unfinished task (skipped or failed). */
function decideGate(gate: ApprovalDefinition, state: TaskState, now: number): TaskState {
  if (state.approval === undefined) return state;
  const { verdict, state: approval } = approvalVerdict(gate, state.approval, now);
  const decided = { ...state, approval };
  if (!verdict.decided || verdict.approved || isFinished(state.status)) return decided;
  return ended(decided, gate.on_reject === 'fail' ? 'failed' : 'skipped', verdict.reason, now);
}

function ended(state: TaskState, status: 'skipped' | 'failed', reason: string, now: number): TaskState {
  return { ...state, status, reason, waitingFor: [], endedAt: now };
}

function requireOpen(task: string, state: TaskState, event: TaskEvent): void {
  if (!isOpen(state.status)) refuse(task, state, event);
}

function requireStarted(task: string, state: TaskState, event: TaskEvent): void {
  if (state.status !== 'running' && state.status !== 'failed' && state.status !== 'cancelled')
    refuse(task, state, event);
}

function refuse(task: string, state: TaskState, event: TaskEvent): never {
  throw new WharfOrchestratorError(
    'INVALID_REQUEST',
    `task ${task} is ${state.status}: it cannot ${event.type}`,
  );
}
