// A durable agent task. Deterministic: imports only @temporalio/workflow and pure modules.
import {
  ActivityCancellationType,
  ActivityFailure,
  ChildWorkflowFailure,
  executeChild,
  isCancellation,
  proxyActivities,
  setCurrentDetails,
  workflowInfo,
} from '@temporalio/workflow';
import { instanceLabel, isLooped } from '../dsl/task-instances.js';
import { addUsage, formatUsage } from '../shared/agent-usage.js';
import { DEFAULT_MAX_SPAWNS, spawnWorkerToolName } from '../shared/tool-names.js';
import type {
  AgentActivities,
  AgentTaskInput,
  AgentToolCallInput,
  AgentUsage,
  SpawnedWorker,
  SubagentResult,
} from '../shared/types.js';
import { HeldToolCalls } from './held-tool-calls.js';
import { subagentRetryPolicy } from './subagent-retry.js';

const NO_USAGE: AgentUsage = { calls: 0, inputTokens: 0, outputTokens: 0, totalTokens: 0 };

/**
 * Runs one agent task as a loop of activities: `agentStart` stores the brief and prompt, then
 * up to `max_steps` times `agentModelStep` calls the model once and every tool call it makes
 * runs as an `agentToolCall` of its own; `agentFinish` hands in the outputs. Each step stores
 * its result before it returns and a retried step returns what was stored, so a worker that
 * dies mid-task costs at most the step it was on: no finished model call is paid twice.
 * Only refs and small metadata pass through history (the conversation lives in the output
 * store), so its size depends on the number of steps, never on what was said.
 *
 * A `spawn_worker` call starts another of the swarm's agents as a child `agentTaskWorkflow`
 * (id `<this workflow>/spawn/<n>`), waits for it and hands the model the worker's compact
 * payload (status, tool index, summary, evidence marker, output refs) as the call's result.
 * At most `max_spawns` (default 8) per task; a spawned worker cannot spawn in turn.
 *
 * The swarm's supervisor runs here too when its agent has tools (`input.supervisor`): its
 * prompt is the workers' compact payloads, each model step mounts their evidence under the
 * budget just before the call, and the result carries its answer as `supervisor`.
 *
 * @example
 * ```ts
 * const result = await executeChild(agentTaskWorkflow, { workflowId, args: [input] });
 * ```
 */
export async function agentTaskWorkflow(input: AgentTaskInput): Promise<SubagentResult> {
  const timeouts = input.agent?.timeouts;
  const { agentStart, agentModelStep, agentToolCall, agentSpawnRequest, agentFinish } =
    proxyActivities<AgentActivities>({
      startToCloseTimeout: timeouts?.start_to_close ?? '30 minutes',
      heartbeatTimeout: timeouts?.heartbeat ?? input.heartbeatTimeoutMs ?? '20 seconds',
      // A cancelled task ends once its step has stopped (a shell tool's processes are gone).
      cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
      retry: subagentRetryPolicy,
    });
  const looped = isLooped(input.definition);
  const label = instanceLabel(input.task, input.definition, input.instance);
  // Every step carries the run's data plane: a worker of another one refuses it.
  const dataPlane = input.dataPlane === undefined ? {} : { dataPlane: input.dataPlane };
  // Tool calls the agent's `tools` hold for a person wait here, answered by `approveToolCall`.
  const held = new HeldToolCalls(input, label);
  const start = await agentStart(input);
  const conversation = [...start.conversation];
  const emitted: string[] = [];
  let usage = NO_USAGE;
  let seq = 0;
  let spawns = 0;
  let evidenceBytes = 0;
  let error: string | undefined;
  const publish = (step: number, note: string) =>
    setCurrentDetails(
      `**${label}** · agent · step ${step} of ${start.maxSteps} · ${note}${usage.calls > 0 ? ` · ${formatUsage(usage)}` : ''}`,
    );
  /** Runs the worker one `spawn_worker` call asks for; its failure is the call's result, not the task's. */
  async function spawnWorker(
    call: AgentToolCallInput,
    n: number,
  ): Promise<{ result: SpawnedWorker; usage?: AgentUsage | undefined }> {
    const limit = input.agent?.max_spawns ?? DEFAULT_MAX_SPAWNS;
    if (n > limit) return { result: { error: `spawn limit reached: this task may spawn ${limit} workers` } };
    const request = await agentSpawnRequest(call);
    if ('error' in request) return { result: request };
    const agent = input.spawnable?.[request.agent];
    if (agent === undefined) return { result: { error: `no agent "${request.agent}" to spawn` } };
    const workflowId = `${workflowInfo().workflowId}/spawn/${n}`;
    const child: AgentTaskInput = {
      swarm: input.swarm,
      ownerId: input.ownerId,
      workflowId: input.workflowId,
      task: `${input.task}${looped ? `.${input.instance}` : ''}.spawn-${n}`,
      instance: 0,
      definition: {
        agent: request.agent,
        prompt: request.prompt,
        depends_on: [],
        inject_context: false,
        inputs: {},
      },
      agent,
      ...(input.limits === undefined ? {} : { limits: input.limits }),
      ...(input.sandbox === undefined ? {} : { sandbox: input.sandbox }),
      inputs: request.inputs,
      inRefs: [],
      ...(input.workdir === undefined ? {} : { workdir: input.workdir }),
      ...(input.heartbeatTimeoutMs === undefined ? {} : { heartbeatTimeoutMs: input.heartbeatTimeoutMs }),
      // Its held tool calls show, and end, with the swarm instance that spawned it.
      owner: input.owner ?? label,
      ...dataPlane,
    };
    try {
      const result = await executeChild(agentTaskWorkflow, {
        workflowId,
        staticSummary: `${label} → ${request.agent} (spawned worker ${n})`,
        args: [child],
      });
      return {
        result: {
          workflowId,
          agent: request.agent,
          status: result.status,
          compact: result.compact,
          outputs: result.outputs.map((ref) => ref.outId),
        },
        usage: result.usage,
      };
    } catch (caught) {
      if (isCancellation(caught)) throw caught;
      const cause = caught instanceof ChildWorkflowFailure ? caught.cause : undefined;
      return {
        result: { error: `spawned worker ${workflowId} failed: ${(cause ?? (caught as Error)).message}` },
      };
    }
  }

  try {
    for (let step = 0; step < start.maxSteps; step++) {
      publish(step + 1, 'model call');
      const answer = await agentModelStep({ brief: start.brief, conversation, step, ...dataPlane });
      conversation.push(answer.record);
      usage = addUsage(usage, answer.usage) ?? usage;
      evidenceBytes = Math.max(evidenceBytes, answer.evidenceBytes ?? 0);
      // Invalid tool calls come back as error results inside the step record: the model goes on.
      if (answer.toolCalls.length === 0 && answer.finishReason !== 'invalid-tool-calls') break;
      publish(step + 1, answer.toolCalls.map((call) => call.toolName).join(', '));
      const first = seq + 1;
      seq += answer.toolCalls.length;
      const results = await Promise.all(
        answer.toolCalls.map(async (call, index) => {
          const toolCall: AgentToolCallInput = {
            brief: start.brief,
            step,
            record: answer.record,
            toolCallId: call.toolCallId,
            seq: first + index,
            ...dataPlane,
          };
          const verdict = await held.decide(call, (note) => publish(step + 1, note));
          if (verdict !== undefined && !verdict.approved) {
            return agentToolCall({ ...toolCall, rejected: verdict.reason });
          }
          if (call.toolName !== spawnWorkerToolName) {
            return agentToolCall(toolCall);
          }
          spawns += 1;
          const spawned = await spawnWorker(toolCall, spawns);
          if ('usage' in spawned) usage = addUsage(usage, spawned.usage) ?? usage;
          return agentToolCall({ ...toolCall, spawned: spawned.result });
        }),
      );
      for (const result of results) {
        conversation.push(result.record);
        if (result.emitted !== undefined) emitted.push(result.emitted);
      }
    }
  } catch (caught) {
    if (isCancellation(caught)) throw caught;
    error =
      caught instanceof ActivityFailure && caught.cause !== undefined
        ? caught.cause.message
        : (caught as Error).message;
  }
  publish(start.maxSteps, error === undefined ? 'finishing' : `failed: ${error}`);
  return agentFinish({
    brief: start.brief,
    conversation,
    emitted,
    usage,
    ...(error === undefined ? {} : { error }),
    ...(input.supervisor === undefined ? {} : { evidenceBytes }),
    ...dataPlane,
  });
}

export { agentWorkflowId } from '../shared/agent-workflow-id.js';
