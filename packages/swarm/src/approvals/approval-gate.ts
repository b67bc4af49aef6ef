// Pure: the state machine of a task's `approval:` gate. Time is a parameter (workflow clock).

import type { ApproveTaskRequest } from '../contracts/handler-contracts.js';
import type { ApprovalState, SwarmProgress } from '../contracts/progress-contracts.js';
import type { ApprovalDefinition } from '../contracts/swarm-schema.js';

/** Where a gate stands: still waiting, or decided (by a person or by its timeout). */
export type ApprovalVerdict = { decided: false } | { decided: true; approved: boolean; reason: string };

/**
 * Opens the gate when its task could first run: records when, and the deadline of a gate with
 * a `timeout`. A gate already open (or answered early) keeps its state.
 *
 * @example
 * ```ts
 * entry.approval = openApproval(spec.approval, entry.approval, Date.now());
 * ```
 */
export function openApproval(
  gate: ApprovalDefinition,
  current: ApprovalState | undefined,
  now: number,
): ApprovalState {
  if (current?.requestedAt !== undefined) return current;
  return {
    ...current,
    ...(gate.prompt === undefined ? {} : { prompt: gate.prompt }),
    requestedAt: now,
    ...(gate.timeout === undefined ? {} : { deadline: now + gate.timeout }),
  };
}

/**
 * Records an answer. Returns the new state, or the reason the answer is refused (the gate
 * was already answered).
 *
 * @example
 * ```ts
 * const next = answerApproval(entry.approval, { task: 'deploy', approve: true, comment: 'ok' }, Date.now());
 * ```
 */
export function answerApproval(
  current: ApprovalState | undefined,
  request: ApproveTaskRequest,
  now: number,
): ApprovalState | { refused: string } {
  if (current?.decision !== undefined)
    return { refused: `task "${request.task}" was already ${current.decision}` };
  return {
    ...current,
    decision: request.approve ? 'approved' : 'rejected',
    ...(request.comment === undefined ? {} : { comment: request.comment }),
    ...(request.by === undefined ? {} : { by: request.by }),
    decidedAt: now,
  };
}

/**
 * Decides the gate at `now`: its answer if it has one; else, past its deadline, its
 * `on_timeout` (the returned state records that); else still waiting.
 *
 * @example
 * ```ts
 * const { verdict, state } = approvalVerdict(spec.approval, entry.approval, Date.now());
 * ```
 */
export function approvalVerdict(
  gate: ApprovalDefinition,
  current: ApprovalState,
  now: number,
): { verdict: ApprovalVerdict; state: ApprovalState } {
  let state = current;
  if (state.decision === undefined && state.deadline !== undefined && now >= state.deadline) {
    state = {
      ...state,
      decision: gate.on_timeout === 'approve' ? 'approved' : 'rejected',
      decidedAt: now,
      timedOut: true,
    };
  }
  if (state.decision === undefined) return { verdict: { decided: false }, state };
  const approved = state.decision === 'approved';
  const who = state.timedOut ? 'by timeout' : state.by === undefined ? '' : `by ${state.by}`;
  const reason = [`${state.decision}`, who, state.comment === undefined ? '' : `: ${state.comment}`]
    .filter(Boolean)
    .join(' ')
    .replace(' :', ':');
  return { verdict: { decided: true, approved, reason }, state };
}

/** A gate waiting for an answer, as `wharf status` and the Web UI list it. */
export interface PendingApproval {
  /** The task; for a tool call, the agent task's label (`review#2`). */
  task: string;
  prompt?: string;
  requestedAt: number;
  deadline?: number;
  /** Set when what waits is one tool call of an agent task, not the task itself. */
  call?: { id: string; tool: string; arguments: string; workflowId: string };
}

/**
 * The gates of a swarm waiting for an answer: its tasks' gates in task order, then the tool
 * calls its agent tasks hold, oldest first, then those of its `swarm:` tasks' child runs (when
 * `WharfClient.progress` filled `TaskProgress.child` in) named `<task>.<inner task>`, as
 * `wharf approve <run> <task>.<inner task>` answers them.
 *
 * @example
 * ```ts
 * pendingApprovals(progress); // [{ task: 'deploy', prompt: 'Ship it?', requestedAt: … }]
 * pendingApprovals(parentProgress); // [{ task: 'notes.publish', … }]: task publish of the child run of notes
 * ```
 */
export function pendingApprovals(
  progress: Pick<SwarmProgress, 'tasks' | 'pendingToolCalls'>,
): PendingApproval[] {
  const pending: PendingApproval[] = [];
  for (const task of progress.tasks) {
    const gate = task.approval;
    if (gate?.requestedAt === undefined || gate.decision !== undefined || task.status !== 'waiting') continue;
    pending.push({
      task: task.task,
      ...(gate.prompt === undefined ? {} : { prompt: gate.prompt }),
      requestedAt: gate.requestedAt,
      ...(gate.deadline === undefined ? {} : { deadline: gate.deadline }),
    });
  }
  for (const call of progress.pendingToolCalls ?? []) {
    pending.push({
      task: call.task,
      ...(call.prompt === undefined ? {} : { prompt: call.prompt }),
      requestedAt: call.requestedAt,
      ...(call.deadline === undefined ? {} : { deadline: call.deadline }),
      call: { id: call.callId, tool: call.tool, arguments: call.arguments, workflowId: call.workflowId },
    });
  }
  for (const task of progress.tasks) {
    if (task.child === undefined) continue;
    for (const gate of pendingApprovals(task.child))
      pending.push({ ...gate, task: `${task.task}.${gate.task}` });
  }
  return pending;
}

/**
 * The command that answers a pending gate or tool call.
 *
 * @example
 * ```ts
 * approveCommand('run-1', { task: 'ops', requestedAt: 0, call: { id: 'call-1', … } });
 * // 'wharf approve run-1 ops --call call-1 [--reject] [--comment …]'
 * ```
 */
export function approveCommand(workflowId: string, gate: PendingApproval): string {
  const call = gate.call === undefined ? '' : ` --call ${gate.call.id}`;
  return `wharf approve ${workflowId} ${gate.task}${call} [--reject] [--comment …]`;
}

/**
 * Markdown for the Web UI's current details: one line per pending gate or tool call with the
 * command that answers it. Empty when none is pending.
 *
 * @example
 * ```ts
 * setCurrentDetails(`${table}\n\n${renderPendingApprovals(pending, workflowId)}`);
 * ```
 */
export function renderPendingApprovals(pending: readonly PendingApproval[], workflowId: string): string {
  if (pending.length === 0) return '';
  const lines = [`**Waiting for approval** (${pending.length})`, ''];
  for (const gate of pending) {
    const deadline =
      gate.deadline === undefined ? '' : ` · decided by timeout at ${new Date(gate.deadline).toISOString()}`;
    const what =
      gate.call === undefined
        ? `\`${gate.task}\``
        : `\`${gate.task}\` calls \`${gate.call.tool}\` \`${gate.call.arguments.replace(/`/g, "'")}\``;
    lines.push(
      `- ${what}${gate.prompt === undefined ? '' : `: ${gate.prompt}`}${deadline} — \`${approveCommand(workflowId, gate)}\``,
    );
  }
  return lines.join('\n');
}
