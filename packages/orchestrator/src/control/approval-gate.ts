// Pure: the state machine of a task's `approval:` gate. Time is a parameter (workflow clock).
import type { ApprovalDefinition } from '../shared/swarm-schema.js';
import type { ApprovalState, ApproveTaskRequest, SwarmProgress } from '../shared/types.js';

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
  task: string;
  prompt?: string;
  requestedAt: number;
  deadline?: number;
}

/**
 * The gates of a swarm waiting for an answer, in task order.
 *
 * @example
 * ```ts
 * pendingApprovals(progress); // [{ task: 'deploy', prompt: 'Ship it?', requestedAt: … }]
 * ```
 */
export function pendingApprovals(progress: Pick<SwarmProgress, 'tasks'>): PendingApproval[] {
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
  return pending;
}

/**
 * Markdown for the Web UI's current details: one line per pending gate with the command that
 * answers it. Empty when none is pending.
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
    lines.push(
      `- \`${gate.task}\`${gate.prompt === undefined ? '' : `: ${gate.prompt}`}${deadline} — \`wharf approve ${workflowId} ${gate.task} [--reject] [--comment …]\``,
    );
  }
  return lines.join('\n');
}
