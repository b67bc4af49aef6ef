// A durable agent task. Deterministic: imports only @temporalio/workflow and pure modules.
import {
  ActivityCancellationType,
  ActivityFailure,
  isCancellation,
  proxyActivities,
  setCurrentDetails,
} from '@temporalio/workflow';
import { addUsage, formatUsage } from '../shared/agent-usage.js';
import type { AgentActivities, AgentTaskInput, AgentUsage, SubagentResult } from '../shared/types.js';

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
 * @example
 * ```ts
 * const result = await executeChild(agentTaskWorkflow, { workflowId, args: [input] });
 * ```
 */
export async function agentTaskWorkflow(input: AgentTaskInput): Promise<SubagentResult> {
  const timeouts = input.agent?.timeouts;
  const { agentStart, agentModelStep, agentToolCall, agentFinish } = proxyActivities<AgentActivities>({
    startToCloseTimeout: timeouts?.start_to_close ?? '30 minutes',
    heartbeatTimeout: timeouts?.heartbeat ?? input.heartbeatTimeoutMs ?? '20 seconds',
    // A cancelled task ends once its step has stopped (a shell tool's processes are gone).
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    retry: {
      initialInterval: '1 second',
      backoffCoefficient: 2,
      maximumInterval: '30 seconds',
      maximumAttempts: 4,
      nonRetryableErrorTypes: ['WharfInvalidDefinition', 'WharfForbidden', 'WharfUnknownModel'],
    },
  });
  const loop = input.definition.loop;
  const looped = loop?.type === 'map' || (loop?.count ?? 1) > 1;
  const label = `${input.task}${looped ? `#${input.instance}` : ''}`;
  const start = await agentStart(input);
  const conversation = [...start.conversation];
  const emitted: string[] = [];
  let usage = NO_USAGE;
  let seq = 0;
  let error: string | undefined;
  const publish = (step: number, note: string) =>
    setCurrentDetails(
      `**${label}** · agent · step ${step} of ${start.maxSteps} · ${note}${usage.calls > 0 ? ` · ${formatUsage(usage)}` : ''}`,
    );
  try {
    for (let step = 0; step < start.maxSteps; step++) {
      publish(step + 1, 'model call');
      const answer = await agentModelStep({ brief: start.brief, conversation, step });
      conversation.push(answer.record);
      usage = addUsage(usage, answer.usage) ?? usage;
      // Invalid tool calls come back as error results inside the step record: the model goes on.
      if (answer.toolCalls.length === 0 && answer.finishReason !== 'invalid-tool-calls') break;
      publish(step + 1, answer.toolCalls.map((call) => call.toolName).join(', '));
      const first = seq + 1;
      seq += answer.toolCalls.length;
      const results = await Promise.all(
        answer.toolCalls.map((call, index) =>
          agentToolCall({
            brief: start.brief,
            step,
            record: answer.record,
            toolCallId: call.toolCallId,
            seq: first + index,
          }),
        ),
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
  });
}

/**
 * The workflow id of an agent task's child workflow: the swarm's id and the task's label.
 *
 * @example
 * ```ts
 * agentWorkflowId('repo-health', 'review#3'); // 'repo-health/agent/review#3'
 * ```
 */
export function agentWorkflowId(swarmWorkflowId: string, label: string): string {
  return `${swarmWorkflowId}/agent/${label}`;
}
