// Workflow-safe: the workflow id of a swarm's `swarm:` tasks, defined once for the workflow and the client.

/**
 * The workflow id of a `swarm:` task's child swarm workflow: the parent swarm's id and the
 * task's label, as an agent task's is (`<swarm>/agent/<label>`).
 *
 * @example
 * ```ts
 * swarmTaskWorkflowId('release-2026', 'review'); // 'release-2026/swarm/review'
 * ```
 */
export function swarmTaskWorkflowId(swarmWorkflowId: string, label: string): string {
  return `${swarmWorkflowId}/swarm/${label}`;
}

/**
 * Where a task named from a parent run lives: a name `<swarm task>.<inner task>` (task names
 * hold no `.`) is the inner task of the child swarm run of that `swarm:` task, found in that
 * child's workflow (`<swarm>/swarm/<swarm task>`), the rest of the name again relative to it
 * (`a.b.c`: task `c` of the child of task `b` of the child of task `a`). A name without a `.`
 * is the run's own task: undefined.
 *
 * @example
 * ```ts
 * nestedTask('release-2026', 'notes.publish'); // { workflowId: 'release-2026/swarm/notes', task: 'publish' }
 * nestedTask('release-2026', 'publish'); // undefined
 * ```
 */
export function nestedTask(
  swarmWorkflowId: string,
  name: string,
): { workflowId: string; task: string } | undefined {
  const dot = name.indexOf('.');
  if (dot <= 0 || dot === name.length - 1) return undefined;
  return { workflowId: swarmTaskWorkflowId(swarmWorkflowId, name.slice(0, dot)), task: name.slice(dot + 1) };
}
