// The AgentPort of a real agent task: its activities, the approveToolCall wait, spawned workers
// as child workflows and the workflow's current details, all of @temporalio/workflow.
// Deterministic: imports only @temporalio/workflow and pure modules.
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
import type {
  AgentActivities,
  AgentTaskInput,
  AgentToolCallRef,
  SpawnOutcome,
  SpawnRequest,
  SubagentResult,
  ToolApprovalRule,
} from '@wharf/swarm';
import { agentTaskInput, isLooped, promptedTask } from '@wharf/swarm';
import type { AgentPort } from './agent-driver.js';
import { HeldToolCalls } from './held-tool-calls.js';
import { subagentRetryPolicy } from './subagent-retry.js';

/**
 * The port `driveAgent` runs against inside `agentTaskWorkflow`. Built when the workflow starts:
 * it registers the `approveToolCall` update of the task's held tool calls. A spawned worker runs
 * as a child `agentTaskWorkflow` `<this workflow>/spawn/<n>`, which cannot spawn in turn.
 *
 * @example
 * ```ts
 * const port = new TemporalAgentPort(input, label, agentTaskWorkflow);
 * return driveAgent(port, setup);
 * ```
 */
export class TemporalAgentPort implements AgentPort {
  readonly #input: AgentTaskInput;
  readonly #label: string;
  readonly #activities: AgentActivities;
  readonly #held: HeldToolCalls;
  readonly #worker: (input: AgentTaskInput) => Promise<SubagentResult>;

  /** `worker` is the workflow a spawned worker runs as (`agentTaskWorkflow`, passed in to keep imports one-way). */
  constructor(
    input: AgentTaskInput,
    label: string,
    worker: (input: AgentTaskInput) => Promise<SubagentResult>,
  ) {
    this.#input = input;
    this.#label = label;
    this.#worker = worker;
    const timeouts = input.agent?.timeouts;
    this.#activities = proxyActivities<AgentActivities>({
      startToCloseTimeout: timeouts?.start_to_close ?? '30 minutes',
      heartbeatTimeout: timeouts?.heartbeat ?? input.heartbeatTimeoutMs ?? '20 seconds',
      // A cancelled task ends once its step has stopped (a shell tool's processes are gone).
      cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
      retry: subagentRetryPolicy,
    });
    // Tool calls the agent's `tools` hold for a person wait here, answered by `approveToolCall`.
    this.#held = new HeldToolCalls(input, label);
  }

  start: AgentPort['start'] = () => this.#activities.agentStart(this.#input);

  modelStep: AgentPort['modelStep'] = (input) => this.#activities.agentModelStep(input);

  toolCall: AgentPort['toolCall'] = (input) => this.#activities.agentToolCall(input);

  spawnRequest: AgentPort['spawnRequest'] = (input) => this.#activities.agentSpawnRequest(input);

  finish: AgentPort['finish'] = (input) => this.#activities.agentFinish(input);

  awaitApproval(call: AgentToolCallRef, rule: ToolApprovalRule, show: (note: string) => void) {
    return this.#held.decide(call, rule, show);
  }

  async spawnWorker(request: SpawnRequest, n: number): Promise<SpawnOutcome> {
    const input = this.#input;
    const agent = input.spawnable?.[request.agent];
    const workflowId = `${workflowInfo().workflowId}/spawn/${n}`;
    // nextAgentStep asks only for a spawnable agent; its definition is read here.
    if (agent === undefined) return { workflowId, failure: `no agent "${request.agent}" to spawn` };
    const looped = isLooped(input.definition);
    const child = agentTaskInput(
      promptedTask(input, {
        task: `${input.task}${looped ? `.${input.instance}` : ''}.spawn-${n}`,
        agentName: request.agent,
        agent,
        prompt: request.prompt,
        inputs: request.inputs,
      }),
      // Its held tool calls show, and end, with the swarm instance that spawned it.
      { heartbeatTimeoutMs: input.heartbeatTimeoutMs, owner: input.owner ?? this.#label },
    );
    try {
      const result = await executeChild(this.#worker, {
        workflowId,
        staticSummary: `${this.#label} → ${request.agent} (spawned worker ${n})`,
        args: [child],
      });
      return { workflowId, agent: request.agent, result };
    } catch (caught) {
      if (isCancellation(caught)) throw caught;
      const cause = caught instanceof ChildWorkflowFailure ? caught.cause : undefined;
      return { workflowId, failure: (cause ?? (caught as Error)).message };
    }
  }

  progress(text: string): void {
    setCurrentDetails(text);
  }

  failure(error: unknown): string | undefined {
    if (isCancellation(error)) return undefined;
    return error instanceof ActivityFailure && error.cause !== undefined
      ? error.cause.message
      : (error as Error).message;
  }
}
