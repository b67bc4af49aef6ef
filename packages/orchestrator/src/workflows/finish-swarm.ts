// The end of a swarm run once every task has finished: the supervisor's answer, the context
// metrics, the result, and the failure of a failed swarm. Deterministic.
import { ApplicationFailure, executeChild, log, upsertMemo, workflowInfo } from '@temporalio/workflow';
import { formatBytes } from '../shared/progress-table.js';
import { describeSwarmFailure, isTaskFailure, swarmFailedErrorType } from '../shared/swarm-failure.js';
import { spawnWorkerToolName } from '../shared/tool-names.js';
import type { AgentTaskInput, SuperviseInput, SuperviseResult, SwarmResult } from '../shared/types.js';
import { type RunPlace, supervisorCall } from '../swarm/activity-calls.js';
import type { SwarmRun } from '../swarm/swarm-run.js';
import { agentTaskWorkflow } from './agent-task-workflow.js';
import { contextMetrics, failureMessage, supervise } from './swarm-activities.js';
import type { SwarmVisibility } from './swarm-visibility.js';

/** What {@link finishSwarm} needs beside the run. */
export interface FinishSwarmOptions {
  place: RunPlace;
  visibility: SwarmVisibility;
}

/**
 * Finishes a swarm run whose tasks have all finished: runs its supervisor (a supervisor that
 * fails is reported beside the outputs), measures its context, and returns its
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
    const summary = `supervisor · ${definition.supervisor.agent} · budget ${formatBytes(call.input.budgetBytes)}`;
    try {
      // A supervisor with tools runs as an agent task, one activity per step, so it may
      // spawn workers (`spawn_worker`) and use its tools durably.
      const agent = definition.agents[definition.supervisor.agent];
      supervisor =
        agent !== undefined && agent.tools.length > 0
          ? await superviseAsAgent(run, place, call.input, summary)
          : await supervise.executeWithOptions({ summary, ...call.options }, [call.input]);
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

/**
 * Runs the supervisor as a child `agentTaskWorkflow` (id `<swarm>/supervisor`): its prompt is
 * the question and the workers' compact payloads, its evidence is mounted before each model
 * call, and it may start any of the swarm's agents with `spawn_worker` when its tools name it.
 */
async function superviseAsAgent(
  run: SwarmRun,
  place: RunPlace,
  input: SuperviseInput,
  summary: string,
): Promise<SuperviseResult> {
  const { definition } = run;
  const name = definition.supervisor?.agent ?? '';
  const task: AgentTaskInput = {
    swarm: definition.name,
    ownerId: place.ownerId,
    workflowId: place.workflowId,
    task: 'supervisor',
    instance: 0,
    definition: { agent: name, prompt: input.question, depends_on: [], inject_context: false, inputs: {} },
    agent: input.agent,
    ...(definition.limits === undefined ? {} : { limits: definition.limits }),
    inputs: {},
    inRefs: [],
    ...(place.workdir === undefined ? {} : { workdir: place.workdir }),
    ...(place.heartbeatTimeoutMs === undefined ? {} : { heartbeatTimeoutMs: place.heartbeatTimeoutMs }),
    ...(input.agent.tools.includes(spawnWorkerToolName) ? { spawnable: definition.agents } : {}),
    supervisor: { question: input.question, budgetBytes: input.budgetBytes, compacts: input.compacts },
  };
  const result = await executeChild(agentTaskWorkflow, {
    workflowId: `${workflowInfo().workflowId}/supervisor`,
    staticSummary: summary,
    args: [task],
  });
  return result.supervisor ?? { answer: '', evidenceBytes: 0, error: 'the supervisor gave no answer' };
}
