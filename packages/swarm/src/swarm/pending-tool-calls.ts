// Pure: the tool calls of a swarm's agent tasks that wait for a person, as their agent
// workflows told the swarm. Each rule returns the next list and never changes the one given.

import type { ToolCallNotice } from '../contracts/handler-contracts.js';
import type { PendingToolCall } from '../contracts/progress-contracts.js';

/**
 * The held calls once an agent workflow told the swarm about one of its tool calls: it waits
 * for a person (`open`: it joins the list, last), or no longer (it leaves it). Shown with the
 * gates (progress, memo, Web UI, search attribute).
 *
 * @example
 * ```ts
 * state.pendingCalls = noteToolCall(state.pendingCalls, notice);
 * ```
 */
export function noteToolCall(calls: readonly PendingToolCall[], notice: ToolCallNotice): PendingToolCall[] {
  const same = (call: PendingToolCall) =>
    call.workflowId === notice.call.workflowId && call.callId === notice.call.callId;
  const others = calls.filter((call) => !same(call));
  return notice.open ? [...others, { ...notice.call }] : others;
}

/**
 * The held calls once `owner` (an instance label, `supervisor`) has ended: its calls are gone.
 *
 * @example
 * ```ts
 * state.pendingCalls = endToolCalls(state.pendingCalls, 'review#2');
 * ```
 */
export function endToolCalls(calls: readonly PendingToolCall[], owner: string): readonly PendingToolCall[] {
  if (calls.length === 0) return calls;
  return calls.filter((call) => call.owner !== owner);
}
