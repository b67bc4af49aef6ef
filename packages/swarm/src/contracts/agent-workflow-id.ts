// Workflow-safe: the workflow id of a swarm's agent tasks, defined once for the workflow and the client.

/**
 * The workflow id of an agent task's child workflow: the swarm's id and the task's label. (The
 * supervisor's is `<swarm>/supervisor`; a spawned worker's is its parent's plus `/spawn/<n>`.)
 *
 * @example
 * ```ts
 * agentWorkflowId('repo-health', 'review#3'); // 'repo-health/agent/review#3'
 * ```
 */
export function agentWorkflowId(swarmWorkflowId: string, label: string): string {
  return `${swarmWorkflowId}/agent/${label}`;
}
