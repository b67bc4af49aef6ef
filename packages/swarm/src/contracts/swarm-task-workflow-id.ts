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
