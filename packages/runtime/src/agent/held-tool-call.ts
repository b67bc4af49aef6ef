import type { AgentToolCallRef } from '@wharf/swarm';
import { callNeedsApproval, callPreview } from '@wharf/swarm';
import type { AgentBrief } from './agent-brief.js';

/**
 * A tool call the model made, as the agent workflow gets it: with `approval` (its arguments cut
 * for people to read) when the agent's `tools` hold calls of this tool for a person and this
 * call matches the rule; as it is otherwise.
 *
 * @example
 * ```ts
 * heldToolCall(brief, { toolCallId: 'call-1', toolName: 'shell' }, { command: 'rm -rf dist' });
 * // { toolCallId: 'call-1', toolName: 'shell', approval: { arguments: '{"command":"rm -rf dist"}' } }
 * ```
 */
export function heldToolCall(
  brief: Pick<AgentBrief, 'toolApprovals'>,
  call: AgentToolCallRef,
  input: unknown,
): AgentToolCallRef {
  const rule = brief.toolApprovals?.[call.toolName];
  if (rule === undefined || !callNeedsApproval(rule, input)) return call;
  return { ...call, approval: { arguments: callPreview(input) } };
}
