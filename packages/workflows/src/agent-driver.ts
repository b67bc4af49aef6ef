// The loop of one agent task, free of Temporal: it owns the loop's state, hands every event to
// the pure nextAgentStep and runs the commands it returns against an AgentPort (activities,
// the approval wait, spawned workers). agent-task-workflow.ts gives it the Temporal port; its
// unit test gives it a fake. Deterministic as long as the port is.

import type {
  AgentFinishInput,
  AgentModelStepResult,
  AgentStartResult,
  AgentStepInput,
  AgentToolCallInput,
  AgentToolCallRef,
  AgentToolCallResult,
  SpawnRequest,
  SubagentResult,
  ToolApprovalRule,
} from '@wharf/swarm';
import {
  type AgentCommand,
  type AgentEvent,
  type AgentLoopSetup,
  type AgentLoopState,
  agentProgress,
  nextAgentStep,
  type SpawnOutcome,
  startAgentLoop,
} from '@wharf/swarm';

/** Everything the agent loop needs from outside its state. */
export interface AgentPort {
  /** Stores the task's brief and prompt (`agentStart`). */
  start(): Promise<AgentStartResult>;
  /** Calls the model once (`agentModelStep`). */
  modelStep(input: AgentStepInput): Promise<AgentModelStepResult>;
  /** Runs, or records the rejection or spawned worker of, one tool call (`agentToolCall`). */
  toolCall(input: AgentToolCallInput): Promise<AgentToolCallResult>;
  /**
   * Holds `call` for a person under `rule` and returns its verdict: the answer, or past the
   * rule's `timeout` its `on_timeout`. `show` is told what the task waits for.
   */
  awaitApproval(
    call: AgentToolCallRef,
    rule: ToolApprovalRule,
    show: (note: string) => void,
  ): Promise<{ approved: boolean; reason: string }>;
  /** Reads a `spawn_worker` call's input (`agentSpawnRequest`). */
  spawnRequest(input: AgentToolCallInput): Promise<SpawnRequest | { error: string }>;
  /** Runs worker `n` as a child agent task and waits for it; its failure is an outcome, not thrown. */
  spawnWorker(request: SpawnRequest, n: number): Promise<SpawnOutcome>;
  /** Hands in the task's outputs (`agentFinish`). */
  finish(input: AgentFinishInput): Promise<SubagentResult>;
  /** Shows a progress line (the workflow's current details). */
  progress(text: string): void;
  /**
   * Why a port call failed, as the finish reports it; `undefined` for a cancellation, which
   * ends the loop as thrown.
   */
  failure(error: unknown): string | undefined;
}

/**
 * Runs one agent task to its result: `start`, then the commands of {@link nextAgentStep}
 * until its `finish` returns. Commands decided together start together, in order (a step's
 * tool calls run at once); each one's event is decided as soon as it arrives, so a tool call
 * approved or a worker spawned goes on without waiting for its siblings. A failed step ends the
 * loop with its error (the calls still in flight are not waited for); a cancellation is thrown.
 *
 * @example
 * ```ts
 * const result = await driveAgent(new TemporalAgentPort(input, label), setup);
 * ```
 */
export async function driveAgent(port: AgentPort, setup: AgentLoopSetup): Promise<SubagentResult> {
  const first = startAgentLoop(setup, await port.start());
  let state: AgentLoopState = first.state;
  return new Promise<SubagentResult>((resolve, reject) => {
    const decide = (event: AgentEvent): void => {
      try {
        const decision = nextAgentStep(state, event);
        state = decision.state;
        for (const command of decision.commands) run(command);
      } catch (error) {
        reject(error);
      }
    };
    const run = (command: AgentCommand): void => {
      if (command.type === 'progress') {
        port.progress(command.text);
        return;
      }
      if (command.type === 'finish') {
        port.finish(command.input).then(resolve, reject);
        return;
      }
      perform(port, command, (note) => port.progress(agentProgress(state, state.steps, note))).then(
        decide,
        (error: unknown) => {
          const failure = port.failure(error);
          if (failure === undefined) reject(error);
          else decide({ type: 'failed', error: failure });
        },
      );
    };
    for (const command of first.commands) run(command);
  });
}

/** Runs one command that waits on the port, and names what came back as the loop's event. */
async function perform(
  port: AgentPort,
  command: Exclude<AgentCommand, { type: 'progress' | 'finish' }>,
  show: (note: string) => void,
): Promise<AgentEvent> {
  switch (command.type) {
    case 'model-step':
      return { type: 'stepped', answer: await port.modelStep(command.input) };
    case 'await-approval':
      return {
        type: 'approval',
        call: command.call,
        verdict: await port.awaitApproval(command.ref, command.rule, show),
      };
    case 'spawn-request':
      return { type: 'spawn-request', call: command.call, request: await port.spawnRequest(command.input) };
    case 'spawn-worker':
      return {
        type: 'spawned',
        call: command.call,
        worker: await port.spawnWorker(command.request, command.n),
      };
    case 'tool-call':
      return { type: 'tool-result', call: command.call, result: await port.toolCall(command.input) };
  }
}
