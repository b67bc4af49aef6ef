import { WharfOrchestratorError } from '../orchestrator-error.js';

/**
 * The swarm's workflow id carried by an activity input: `workflowId`, or `runId`, its name in
 * the inputs of runs started before it was renamed (their activities still get it on retry).
 *
 * @example
 * ```ts
 * swarmWorkflowId({ runId: 'swarm-1' }); // 'swarm-1'
 * swarmWorkflowId({ workflowId: 'swarm-2', runId: 'swarm-2' }); // 'swarm-2'
 * ```
 */
export function swarmWorkflowId(input: {
  workflowId?: string | undefined;
  runId?: string | undefined;
}): string {
  const id = input.workflowId ?? input.runId;
  if (id === undefined || id === '') {
    throw new WharfOrchestratorError(
      'INVALID_REQUEST',
      'the activity input names no workflow id (workflowId)',
    );
  }
  return id;
}
