import type { WorkflowExecutionDescription } from '@temporalio/client';
import { approveCommand, swarmSearchAttributes, swarmTaskWorkflowId } from '@wharf/orchestrator';

/**
 * What `wharf status` prints of a running swarm no worker answers for: its status and the gates
 * and tool calls waiting for a person, as its search attributes and memo hold them (written by
 * the swarm as it ran), each with the command that answers it, and how to give it a worker.
 * With `under` (a `swarm:` task's name, `notes` or `notes.deep`), `description` is that task's
 * child run: its lines name what waits `<under>.<task>`, answered from the run `workflowId`.
 * `childWaiting` (what its `swarm:` tasks' child runs wait for, {@link childMemoLines}) counts
 * in the run's first line: a run whose child waits for a person reads `waiting`, as its live
 * status does.
 *
 * @example
 * ```ts
 * for (const line of memoStatusLines(workflowId, await handle.describe())) console.log(line);
 * ```
 */
export function memoStatusLines(
  workflowId: string,
  description: Pick<WorkflowExecutionDescription, 'memo' | 'typedSearchAttributes'>,
  under?: string,
  childWaiting = 0,
): string[] {
  if (under !== undefined) return childMemoStatusLines(workflowId, description, under);
  const memo = description.memo ?? {};
  const own = description.typedSearchAttributes.get(swarmSearchAttributes.status) ?? 'running';
  const status = own === 'running' && childWaiting > 0 ? 'waiting' : own;
  const waiting =
    (description.typedSearchAttributes.get(swarmSearchAttributes.pendingGates) ?? 0) + childWaiting;
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

/** {@link memoStatusLines} of a `swarm:` task's child run, what waits named under the task `under`. */
function childMemoStatusLines(
  workflowId: string,
  description: Pick<WorkflowExecutionDescription, 'memo' | 'typedSearchAttributes'>,
  under: string,
): string[] {
  const memo = description.memo ?? {};
  const named = (task: unknown) => (typeof task === 'string' ? `${under}.${task}` : task);
  const list = (value: unknown) => (Array.isArray(value) ? value : []);
  const [, ...rest] = memoStatusLines(workflowId, {
    ...description,
    memo: {
      ...memo,
      pendingApprovals: list(memo.pendingApprovals).map(named),
      pendingToolCalls: list(memo.pendingToolCalls).map((call: Record<string, unknown>) => ({
        ...call,
        task: named(call?.task),
      })),
    },
  });
  const status = description.typedSearchAttributes.get(swarmSearchAttributes.status) ?? 'running';
  const waiting = description.typedSearchAttributes.get(swarmSearchAttributes.pendingGates) ?? 0;
  return [
    `  ↳ ${under}: swarm ${typeof memo.swarm === 'string' ? memo.swarm : under} ${status} · ${waiting} waiting for approval`,
    ...rest,
  ];
}

/**
 * What {@link memoStatusLines} says of the `swarm:` task child runs of a run no worker answers
 * for (`raw.pendingChildren` of type `swarmWorkflow`), and of theirs in turn, each read from its
 * memo by `describe` (undefined: left out), named under its task as the parent's commands take it;
 * and how many gates they wait on in all (their `WharfPendingGates`).
 *
 * @example
 * ```ts
 * const describe = (id: string) => client.workflow.getHandle(id).describe().catch(() => undefined);
 * const children = await childMemoLines(describe, workflowId, description);
 * for (const line of memoStatusLines(workflowId, description, undefined, children.waiting)) console.log(line);
 * for (const line of children.lines) console.log(line);
 * ```
 */
export async function childMemoLines(
  describe: (workflowId: string) => Promise<WorkflowExecutionDescription | undefined>,
  workflowId: string,
  description: Pick<WorkflowExecutionDescription, 'workflowId' | 'raw'>,
  under?: string,
): Promise<{ lines: string[]; waiting: number }> {
  const lines: string[] = [];
  let waiting = 0;
  const prefix = swarmTaskWorkflowId(description.workflowId, '');
  for (const child of description.raw.pendingChildren ?? []) {
    const childId = child.workflowId ?? '';
    if (child.workflowTypeName !== 'swarmWorkflow' || !childId.startsWith(prefix)) continue;
    const task = childId.slice(prefix.length);
    const name = under === undefined ? task : `${under}.${task}`;
    const read = await describe(childId);
    if (read === undefined) continue;
    const deeper = await childMemoLines(describe, workflowId, read, name);
    lines.push(...memoStatusLines(workflowId, read, name), ...deeper.lines);
    waiting += (read.typedSearchAttributes.get(swarmSearchAttributes.pendingGates) ?? 0) + deeper.waiting;
  }
  return { lines, waiting };
}
