import type { WorkflowExecutionDescription } from '@temporalio/client';
import { approveCommand, swarmSearchAttributes } from '@wharf/orchestrator';

/**
 * What `wharf status` prints of a running swarm no worker answers for: its status and the gates
 * and tool calls waiting for a person, as its search attributes and memo hold them (written by
 * the swarm as it ran), each with the command that answers it, and how to give it a worker.
 *
 * @example
 * ```ts
 * for (const line of memoStatusLines(workflowId, await handle.describe())) console.log(line);
 * ```
 */
export function memoStatusLines(
  workflowId: string,
  description: Pick<WorkflowExecutionDescription, 'memo' | 'typedSearchAttributes'>,
): string[] {
  const memo = description.memo ?? {};
  const status = description.typedSearchAttributes.get(swarmSearchAttributes.status) ?? 'running';
  const waiting = description.typedSearchAttributes.get(swarmSearchAttributes.pendingGates) ?? 0;
  const lines: string[] = [];
  const gates = Array.isArray(memo.pendingApprovals)
    ? memo.pendingApprovals.filter((task) => typeof task === 'string')
    : [];
  const calls = Array.isArray(memo.pendingToolCalls)
    ? (memo.pendingToolCalls as Record<string, unknown>[])
    : [];
  // The commands below are promised only when there are some.
  const answers = gates.length + calls.length > 0 ? '; the commands below are answered once it runs' : '';
  lines.push(
    `${typeof memo.swarm === 'string' ? memo.swarm : workflowId}: ${status} · ${waiting} waiting for approval (no worker answers for it: \`wharf resume ${workflowId}\` gives it one${answers})`,
  );
  for (const task of gates)
    lines.push(`  ${task}`, `    ${approveCommand(workflowId, { task, requestedAt: 0 })}`);
  for (const call of calls) {
    if (typeof call.task !== 'string' || typeof call.callId !== 'string') continue;
    lines.push(
      `  ${call.task} calls ${String(call.tool)} ${String(call.arguments)}`,
      `    ${approveCommand(workflowId, {
        task: call.task,
        requestedAt: 0,
        call: {
          id: call.callId,
          tool: String(call.tool),
          arguments: String(call.arguments),
          workflowId: String(call.workflowId),
        },
      })}`,
    );
  }
  return lines;
}
