// The end of a swarm run once every task has finished: the supervisor's answer, the context
// metrics, the result, and the failure of a failed swarm. Deterministic.
import { ApplicationFailure, executeChild, log, upsertMemo, workflowInfo } from '@temporalio/workflow';
import { describeSwarmFailure, isTaskFailure, swarmFailedErrorType } from '../shared/swarm-failure.js';
import type { SwarmResult } from '../shared/types.js';
import { type RunPlace, supervisorCall } from '../swarm/activity-calls.js';
import type { SwarmRun } from '../swarm/swarm-run.js';
import { agentTaskWorkflow } from './agent-task-workflow.js';
import { contextMetrics, failureMessage } from './swarm-activities.js';
import type { SwarmVisibility } from './swarm-visibility.js';

/** What {@link finishSwarm} needs beside the run. */
export interface FinishSwarmOptions {
  place: RunPlace;
  visibility: SwarmVisibility;
}

/**
 * Finishes a swarm run whose tasks have all finished: runs its supervisor as a child
 * `agentTaskWorkflow` (a supervisor that fails is reported beside the outputs), measures its context, and returns its
 * {@link SwarmResult}. A failed swarm throws a non-retryable `WharfSwarmFailed` failure whose
 * details hold the whole result, unless the definition says `on_failure: complete`.
 *
 * @example
 * ```ts
 * if (run.allFinished()) return finishSwarm(run, { place, visibility });
 * ```
 */
export async function finishSwarm(run: SwarmRun, options: FinishSwarmOptions): Promise<SwarmResult> {
  const { place, visibility } = options;
  const { definition } = run;
  let supervisor: SwarmResult['supervisor'];
  if (definition.supervisor !== undefined) {
    visibility.setStatus('supervising');
    visibility.publish();
    const call = supervisorCall(run, place);
    if (call === undefined)
      throw ApplicationFailure.nonRetryable('supervisor agent missing', 'WharfInvalidDefinition');
    try {
      // One activity per model step and tool call, like any agent task (`<swarm>/supervisor`).
      const answer = await executeChild(agentTaskWorkflow, {
        workflowId: `${workflowInfo().workflowId}/supervisor`,
        staticSummary: call.summary,
        args: [call.input],
      });
      supervisor = answer.supervisor ?? {
        answer: '',
        evidenceBytes: 0,
        error: 'the supervisor gave no answer',
      };
    } catch (error) {
      // The swarm's outputs stand whatever the supervisor does: report its failure beside them.
      supervisor = { answer: '', evidenceBytes: 0, error: failureMessage(error) };
    }
  }
  let context: SwarmResult['metrics']['context'];
  try {
    context = await contextMetrics({ definition, pool: run.contextPool.pool });
  } catch (error) {
    // The swarm's outcome stands; only this figure is missing.
    log.warn('context metrics failed', { error: (error as Error).message });
  }
  const result = run.result({ supervisor, context });
  visibility.setStatus(result.status);
  visibility.publish();
  const failedTasks = result.tasks.filter(isTaskFailure).map((task) => task.task);
  upsertMemo({ status: result.status, failedTasks });
  if (result.status === 'failed' && definition.on_failure !== 'complete') {
    // A failed workflow is what the Web UI, its Failures filter and visibility show as failed;
    // the result travels whole in the failure's details (WharfClient.result returns it).
    throw ApplicationFailure.create({
      type: swarmFailedErrorType,
      message: describeSwarmFailure(result),
      nonRetryable: true,
      details: [result],
    });
  }
  return result;
}
