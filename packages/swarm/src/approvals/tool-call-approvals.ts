// Pure: the tool calls one agent task holds for a person, each a small approval gate. Time is a
// parameter (the workflow clock). Runs inside the workflow sandbox.

import type { ApproveToolCallRequest, ApproveToolCallResult } from '../contracts/handler-contracts.js';
import type { ApprovalState, PendingToolCall } from '../contracts/progress-contracts.js';
import type { ApprovalDefinition, ToolApprovalRule } from '../contracts/swarm-schema.js';
import { WharfOrchestratorError } from '../orchestrator-error.js';
import { answerApproval, approvalVerdict, openApproval } from './approval-gate.js';

/** How a held call ended: approved (it runs) or rejected (the model is told why). */
export type ToolCallVerdict = { decided: false } | { decided: true; approved: boolean; reason: string };

interface HeldCall {
  call: PendingToolCall;
  gate: ApprovalDefinition;
  state: ApprovalState;
}

/**
 * The tool calls of one agent task that wait for a person, by tool call id. Each is a gate of
 * its own with the task gates' rules (`approval-gate.ts`): opened when the model makes the call,
 * answered once (`approveToolCall`), or decided by its rule's `on_timeout` past its deadline.
 * Answering a call that is not held, or twice, is a typed error (code `INVALID_REQUEST`).
 *
 * @example
 * ```ts
 * const held = new ToolCallApprovals();
 * const pending = held.open({ task: 'ops', callId: 'call-1', tool: 'shell', arguments: '{"command":"rm -r dist"}', workflowId }, rule, now);
 * held.answer({ callId: 'call-1', approve: false, comment: 'not dist' }, now);
 * held.verdict('call-1', now); // { decided: true, approved: false, reason: 'rejected: not dist' }
 * ```
 */
export class ToolCallApprovals {
  readonly #calls = new Map<string, HeldCall>();

  /** Holds a call from `now`: its deadline is `now + timeout` when the rule has one. */
  open(
    call: Omit<PendingToolCall, 'requestedAt' | 'deadline' | 'prompt'>,
    rule: ToolApprovalRule,
    now: number,
  ): PendingToolCall {
    const gate: ApprovalDefinition = { ...rule, on_reject: 'skip' };
    const state = openApproval(gate, undefined, now);
    const held: PendingToolCall = {
      ...call,
      ...(rule.prompt === undefined ? {} : { prompt: rule.prompt }),
      requestedAt: now,
      ...(state.deadline === undefined ? {} : { deadline: state.deadline }),
    };
    this.#calls.set(call.callId, { call: held, gate, state });
    return held;
  }

  /** Throws the error answering `request` would throw, and changes nothing: the update's validator. */
  check(request: ApproveToolCallRequest): void {
    const held = this.#held(request.callId);
    if (held.state.decision !== undefined)
      throw new WharfOrchestratorError(
        'INVALID_REQUEST',
        `tool call ${request.callId} (${held.call.tool}) of ${held.call.task} was already ${held.state.decision}${held.state.timedOut ? ' by timeout' : ''}`,
      );
  }

  /** Records a person's answer (see {@link check}). */
  answer(request: ApproveToolCallRequest, now: number): ApproveToolCallResult {
    this.check(request);
    const held = this.#held(request.callId);
    const answered = answerApproval(held.state, { task: held.call.task, ...request }, now);
    if ('refused' in answered) throw new WharfOrchestratorError('INVALID_REQUEST', answered.refused);
    held.state = answered;
    return {
      task: held.call.task,
      callId: request.callId,
      tool: held.call.tool,
      decision: request.approve ? 'approved' : 'rejected',
    };
  }

  /** The call's verdict at `now`: its answer, else (past its deadline) its `on_timeout`, else none yet. */
  verdict(callId: string, now: number): ToolCallVerdict {
    const held = this.#held(callId);
    const { verdict, state } = approvalVerdict(held.gate, held.state, now);
    held.state = state;
    return verdict;
  }

  /** True once the call was answered (a timeout is decided by {@link verdict}). */
  answered(callId: string): boolean {
    return this.#held(callId).state.decision !== undefined;
  }

  /** The calls still waiting for an answer, oldest first. */
  pending(): PendingToolCall[] {
    return [...this.#calls.values()]
      .filter((held) => held.state.decision === undefined)
      .map((held) => held.call);
  }

  #held(callId: string): HeldCall {
    const held = this.#calls.get(callId);
    if (held !== undefined) return held;
    const waiting = this.pending().map((call) => call.callId);
    throw new WharfOrchestratorError(
      'INVALID_REQUEST',
      `no tool call ${callId} waits for an answer here${waiting.length === 0 ? '' : `; waiting: ${waiting.join(', ')}`}`,
    );
  }
}

/** Longest text of a call's arguments kept for people to read. */
export const TOOL_CALL_PREVIEW_CHARS = 300;

/**
 * True when a call of a tool with this rule waits for a person: always without `match`; else
 * when every argument `match` names, as text (JSON for a value that is not a string), matches
 * its regular expression.
 *
 * @example
 * ```ts
 * callNeedsApproval({ on_timeout: 'reject', match: { command: '^rm ' } }, { command: 'rm -rf dist' }); // true
 * callNeedsApproval({ on_timeout: 'reject', match: { command: '^rm ' } }, { command: 'ls' }); // false
 * ```
 */
export function callNeedsApproval(rule: Pick<ToolApprovalRule, 'match'>, input: unknown): boolean {
  if (rule.match === undefined) return true;
  const args = typeof input === 'object' && input !== null ? (input as Record<string, unknown>) : {};
  return Object.entries(rule.match).every(([name, source]) => {
    if (!Object.hasOwn(args, name)) return false;
    const value = args[name];
    return new RegExp(source).test(typeof value === 'string' ? value : (JSON.stringify(value) ?? ''));
  });
}

/**
 * A call's arguments as people read them: JSON, cut to {@link TOOL_CALL_PREVIEW_CHARS} with `…`.
 *
 * @example
 * ```ts
 * callPreview({ command: 'ls' }); // '{"command":"ls"}'
 * ```
 */
export function callPreview(input: unknown): string {
  const text = JSON.stringify(input) ?? String(input);
  const characters = Array.from(text);
  return characters.length <= TOOL_CALL_PREVIEW_CHARS
    ? text
    : `${characters.slice(0, TOOL_CALL_PREVIEW_CHARS - 1).join('')}…`;
}
