// Pure: the decisions of one agent task's loop (model steps, tool calls, approvals, spawned
// workers, its step and spawn budgets) as a single transition function. Runs inside the
// workflow sandbox; it reads no clock (an approval's timeout travels as a duration).

import type {
  AgentFinishInput,
  AgentModelStepResult,
  AgentStartResult,
  AgentStepInput,
  AgentToolCallInput,
  AgentToolCallRef,
  AgentToolCallResult,
  AgentUsage,
  SpawnedWorker,
  SpawnRequest,
  SubagentResult,
} from '../contracts/agent-contracts.js';
import type { DataPlaneIdentity } from '../contracts/data-plane-contracts.js';
import type { ToolApprovalRule } from '../contracts/swarm-schema.js';
import { spawnWorkerToolName } from '../contracts/tool-names.js';
import { WharfOrchestratorError } from '../orchestrator-error.js';
import { addUsage, formatUsage } from '../report/agent-usage.js';

/** What the loop knows of its task before it starts (read from the task's input). */
export interface AgentLoopSetup {
  /** The task instance as people read it (`review#2`): the head of every progress line. */
  label: string;
  /** Most workers `spawn_worker` may start (the agent's `max_spawns`). */
  maxSpawns: number;
  /** By tool name: the rules of calls that wait for a person (the agent's `tool_approvals`). */
  approvals: Readonly<Record<string, ToolApprovalRule>>;
  /** The agents `spawn_worker` may start (none for a task without the tool, or a spawned worker). */
  spawnable: readonly string[];
  /** The swarm's supervisor: its finish reports the most evidence bytes mounted into one call. */
  supervisor: boolean;
  /** The run's data plane, carried by every step. */
  dataPlane?: DataPlaneIdentity | undefined;
}

/** Where one tool call of the current step stands. */
export type ToolCallPhase = 'approval' | 'spawn-request' | 'spawning' | 'running' | 'done';

/** One tool call of the current step. */
export interface ToolCallState {
  ref: AgentToolCallRef;
  /** 1-based position among all the task's tool calls (its evidence `seq`). */
  seq: number;
  phase: ToolCallPhase;
  /** The worker number (`<agent workflow>/spawn/<n>`) of a `spawn_worker` call past its approval. */
  worker?: number;
  result?: AgentToolCallResult;
}

/** The loop between its decisions. Never changed in place: every decision returns a new one. */
export interface AgentLoopState {
  readonly setup: AgentLoopSetup;
  /** Out id of the stored brief. */
  readonly brief: string;
  readonly maxSteps: number;
  /** Model steps taken (answered) so far. */
  readonly steps: number;
  /** Out ids of the conversation records, oldest first. */
  readonly conversation: readonly string[];
  /** Out ids the `emit` tool stored, in order. */
  readonly emitted: readonly string[];
  /** The task's model usage so far, its spawned workers' included. */
  readonly usage: AgentUsage;
  /** A supervisor's most evidence bytes mounted into one model call. */
  readonly evidenceBytes: number;
  /** Tool calls made so far. */
  readonly seq: number;
  /** `spawn_worker` calls that passed their approval so far (over the budget included). */
  readonly spawns: number;
  /** Out id of the current step's record, once the model answered. */
  readonly record?: string | undefined;
  /** The current step's tool calls, in the model's order. */
  readonly calls: readonly ToolCallState[];
  /** `running` until the loop hands in its outputs (`finishing`), with `error` when it failed. */
  readonly phase: 'running' | 'finishing';
  readonly error?: string | undefined;
}

/**
 * Everything that happens to the loop, in the closed vocabulary of {@link nextAgentStep}:
 * - `stepped`: the model answered a step (its tool calls come with it);
 * - `approval`: a held tool call was decided (by a person, or by its rule's `on_timeout`);
 * - `spawn-request`: `agentSpawnRequest` read a `spawn_worker` call's input (or refused it);
 * - `spawned`: a spawned worker's child workflow ended (or could not run);
 * - `tool-result`: a tool call ran and its result is stored;
 * - `failed`: a step failed for good (its retries spent): the loop ends with the error.
 * `call` is the tool call's position in the current step.
 */
export type AgentEvent =
  | { type: 'stepped'; answer: AgentModelStepResult }
  | { type: 'approval'; call: number; verdict: { approved: boolean; reason: string } }
  | { type: 'spawn-request'; call: number; request: SpawnRequest | { error: string } }
  | { type: 'spawned'; call: number; worker: SpawnOutcome }
  | { type: 'tool-result'; call: number; result: AgentToolCallResult }
  | { type: 'failed'; error: string };

/** How a spawned worker's child workflow ended: its result, or why it has none. */
export type SpawnOutcome =
  | {
      workflowId: string;
      agent: string;
      result: Pick<SubagentResult, 'status' | 'compact' | 'outputs' | 'usage'>;
    }
  | { workflowId: string; failure: string };

/**
 * What the loop asks of the world next, in the closed vocabulary its driver runs:
 * - `progress`: show this line (the workflow's current details);
 * - `model-step`: call the model once (`agentModelStep`);
 * - `await-approval`: hold a tool call for a person under `rule` (its `timeout` a duration);
 * - `spawn-request`: read a `spawn_worker` call's input (`agentSpawnRequest`);
 * - `spawn-worker`: start worker `n` as a child agent workflow and wait for it;
 * - `tool-call`: run (or, `rejected`/`spawned` set, record) a tool call (`agentToolCall`);
 * - `finish`: hand in the outputs (`agentFinish`): the loop's last command.
 * Commands returned together start together, in order.
 */
export type AgentCommand =
  | { type: 'progress'; text: string }
  | { type: 'model-step'; input: AgentStepInput }
  | { type: 'await-approval'; call: number; ref: AgentToolCallRef; rule: ToolApprovalRule }
  | { type: 'spawn-request'; call: number; input: AgentToolCallInput }
  | { type: 'spawn-worker'; call: number; n: number; request: SpawnRequest }
  | { type: 'tool-call'; call: number; input: AgentToolCallInput }
  | { type: 'finish'; input: AgentFinishInput };

/** A decision: the loop's next state and the commands to start now (none while it waits). */
export interface AgentDecision {
  state: AgentLoopState;
  commands: AgentCommand[];
}

const NO_USAGE: AgentUsage = { calls: 0, inputTokens: 0, outputTokens: 0, totalTokens: 0 };

/** The rule of a held call whose tool names none: it waits with no timeout. */
const DEFAULT_RULE: ToolApprovalRule = { on_timeout: 'reject' };

/**
 * The loop's first decision once `agentStart` stored the brief: call the model for step 1.
 *
 * @example
 * ```ts
 * const { state, commands } = startAgentLoop(setup, await agentStart(input));
 * // commands: [{ type: 'progress', … }, { type: 'model-step', input: { brief, conversation, step: 0 } }]
 * ```
 */
export function startAgentLoop(setup: AgentLoopSetup, start: AgentStartResult): AgentDecision {
  const state: AgentLoopState = {
    setup,
    brief: start.brief,
    maxSteps: start.maxSteps,
    steps: 0,
    conversation: [...start.conversation],
    emitted: [],
    usage: NO_USAGE,
    evidenceBytes: 0,
    seq: 0,
    spawns: 0,
    calls: [],
    phase: 'running',
  };
  return nextModelStep(state);
}

/**
 * The loop's next state and commands after `event`. Pure: `state` is not changed. An event
 * after the loop began to finish (a tool call still in flight when another failed) changes
 * nothing; an event about a tool call the step does not hold, or in the wrong phase, is a
 * typed error (code `INVALID_REQUEST`).
 *
 * @example
 * ```ts
 * let { state, commands } = startAgentLoop(setup, start);
 * ({ state, commands } = nextAgentStep(state, { type: 'stepped', answer }));
 * // a final answer: [{ type: 'progress', … }, { type: 'finish', input: { brief, conversation, … } }]
 * ```
 */
export function nextAgentStep(state: AgentLoopState, event: AgentEvent): AgentDecision {
  if (state.phase === 'finishing') return { state, commands: [] };
  switch (event.type) {
    case 'stepped':
      return stepped(state, event.answer);
    case 'failed':
      return finish({ ...state, error: event.error });
    case 'approval': {
      const call = callIn(state, event.call, 'approval');
      if (!event.verdict.approved) return toRun(state, event.call, call, { rejected: event.verdict.reason });
      return approved(state, event.call, call);
    }
    case 'spawn-request': {
      const call = callIn(state, event.call, 'spawn-request');
      const { request } = event;
      if ('error' in request) return toRun(state, event.call, call, { spawned: request });
      if (!state.setup.spawnable.includes(request.agent))
        return toRun(state, event.call, call, { spawned: { error: `no agent "${request.agent}" to spawn` } });
      const next = withCall(state, event.call, { ...call, phase: 'spawning' });
      return {
        state: next,
        commands: [{ type: 'spawn-worker', call: event.call, n: call.worker ?? 0, request }],
      };
    }
    case 'spawned': {
      const call = callIn(state, event.call, 'spawning');
      const { worker } = event;
      if ('failure' in worker)
        return toRun(state, event.call, call, {
          spawned: { error: `spawned worker ${worker.workflowId} failed: ${worker.failure}` },
        });
      const spawned: SpawnedWorker = {
        workflowId: worker.workflowId,
        agent: worker.agent,
        status: worker.result.status,
        compact: worker.result.compact ?? '',
        outputs: worker.result.outputs.map((ref) => ref.outId),
      };
      const usage = addUsage(state.usage, worker.result.usage) ?? state.usage;
      return toRun({ ...state, usage }, event.call, call, { spawned });
    }
    case 'tool-result': {
      const call = callIn(state, event.call, 'running');
      const next = withCall(state, event.call, { ...call, phase: 'done', result: event.result });
      if (next.calls.some((other) => other.phase !== 'done')) return { state: next, commands: [] };
      // The step's calls are in: their results join the conversation in the model's order.
      const results = next.calls.map((done) => done.result as AgentToolCallResult);
      return nextModelStep({
        ...next,
        calls: [],
        conversation: [...next.conversation, ...results.map((result) => result.record)],
        emitted: [
          ...next.emitted,
          ...results.flatMap((result) => (result.emitted === undefined ? [] : [result.emitted])),
        ],
      });
    }
  }
}

/**
 * The line the task shows while it runs: where it is in its step budget, what it does, and its
 * usage so far.
 *
 * @example
 * ```ts
 * agentProgress(state, 1, 'model call'); // '**review#2** · agent · step 1 of 8 · model call'
 * ```
 */
export function agentProgress(state: AgentLoopState, step: number, note: string): string {
  const usage = state.usage.calls > 0 ? ` · ${formatUsage(state.usage)}` : '';
  return `**${state.setup.label}** · agent · step ${step} of ${state.maxSteps} · ${note}${usage}`;
}

/** The model answered: its record joins the conversation, and its tool calls start (or the loop ends). */
function stepped(state: AgentLoopState, answer: AgentModelStepResult): AgentDecision {
  const taken: AgentLoopState = {
    ...state,
    steps: state.steps + 1,
    record: answer.record,
    conversation: [...state.conversation, answer.record],
    usage: addUsage(state.usage, answer.usage) ?? state.usage,
    evidenceBytes: Math.max(state.evidenceBytes, answer.evidenceBytes ?? 0),
  };
  // A final answer; invalid tool calls come back as error results inside the record: the model goes on.
  if (answer.toolCalls.length === 0 && answer.finishReason !== 'invalid-tool-calls') return finish(taken);
  const calls = answer.toolCalls.map(
    (ref, index): ToolCallState => ({ ref, seq: state.seq + index + 1, phase: 'approval' }),
  );
  let next: AgentLoopState = { ...taken, seq: state.seq + calls.length, calls };
  const commands: AgentCommand[] = [
    {
      type: 'progress',
      text: agentProgress(next, next.steps, calls.map((call) => call.ref.toolName).join(', ')),
    },
  ];
  // Held calls start waiting first; the others then start in the model's order.
  calls.forEach((call, index) => {
    if (call.ref.approval === undefined) return;
    const rule = state.setup.approvals[call.ref.toolName] ?? DEFAULT_RULE;
    commands.push({ type: 'await-approval', call: index, ref: call.ref, rule });
  });
  calls.forEach((call, index) => {
    if (call.ref.approval !== undefined) return;
    const decision = approved(next, index, call);
    next = decision.state;
    commands.push(...decision.commands);
  });
  if (calls.length === 0) return nextModelStep(next, commands);
  return { state: next, commands };
}

/** A call that may run: a `spawn_worker` call asks for its worker (within the budget), any other runs. */
function approved(state: AgentLoopState, index: number, call: ToolCallState): AgentDecision {
  if (call.ref.toolName !== spawnWorkerToolName) return toRun(state, index, call, {});
  const worker = state.spawns + 1;
  const spawning: AgentLoopState = { ...state, spawns: worker };
  const limit = state.setup.maxSpawns;
  if (worker > limit)
    return toRun(spawning, index, call, {
      spawned: { error: `spawn limit reached: this task may spawn ${limit} workers` },
    });
  const next = withCall(spawning, index, { ...call, phase: 'spawn-request', worker });
  return {
    state: next,
    commands: [{ type: 'spawn-request', call: index, input: toolCallInput(next, call, {}) }],
  };
}

/** The call's `agentToolCall`, with what the loop decided for it (`rejected`, `spawned`). */
function toRun(
  state: AgentLoopState,
  index: number,
  call: ToolCallState,
  decided: Pick<AgentToolCallInput, 'rejected' | 'spawned'>,
): AgentDecision {
  const next = withCall(state, index, { ...call, phase: 'running' });
  return {
    state: next,
    commands: [{ type: 'tool-call', call: index, input: toolCallInput(next, call, decided) }],
  };
}

function toolCallInput(
  state: AgentLoopState,
  call: ToolCallState,
  decided: Pick<AgentToolCallInput, 'rejected' | 'spawned'>,
): AgentToolCallInput {
  return {
    brief: state.brief,
    step: state.steps - 1,
    record: state.record as string,
    toolCallId: call.ref.toolCallId,
    seq: call.seq,
    ...dataPlaneOf(state),
    ...decided,
  };
}

/** The next model step, or the finish once the step budget is spent. */
function nextModelStep(state: AgentLoopState, before: AgentCommand[] = []): AgentDecision {
  if (state.steps >= state.maxSteps) return finish(state, before);
  const step = state.steps;
  return {
    state,
    commands: [
      ...before,
      { type: 'progress', text: agentProgress(state, step + 1, 'model call') },
      {
        type: 'model-step',
        input: { brief: state.brief, conversation: [...state.conversation], step, ...dataPlaneOf(state) },
      },
    ],
  };
}

function finish(state: AgentLoopState, before: AgentCommand[] = []): AgentDecision {
  const { error } = state;
  return {
    state: { ...state, phase: 'finishing' },
    commands: [
      ...before,
      {
        type: 'progress',
        text: agentProgress(state, state.maxSteps, error === undefined ? 'finishing' : `failed: ${error}`),
      },
      {
        type: 'finish',
        input: {
          brief: state.brief,
          conversation: [...state.conversation],
          emitted: [...state.emitted],
          usage: state.usage,
          ...(error === undefined ? {} : { error }),
          ...(state.setup.supervisor ? { evidenceBytes: state.evidenceBytes } : {}),
          ...dataPlaneOf(state),
        },
      },
    ],
  };
}

function dataPlaneOf(state: AgentLoopState): { dataPlane?: DataPlaneIdentity } {
  return state.setup.dataPlane === undefined ? {} : { dataPlane: state.setup.dataPlane };
}

function withCall(state: AgentLoopState, index: number, call: ToolCallState): AgentLoopState {
  return { ...state, calls: state.calls.map((other, at) => (at === index ? call : other)) };
}

function callIn(state: AgentLoopState, index: number, phase: ToolCallPhase): ToolCallState {
  const call = state.calls[index];
  if (call === undefined)
    throw new WharfOrchestratorError('INVALID_REQUEST', `step ${state.steps} holds no tool call ${index}`);
  if (call.phase !== phase)
    throw new WharfOrchestratorError(
      'INVALID_REQUEST',
      `tool call ${call.ref.toolCallId} (${call.ref.toolName}) is in ${call.phase}, not ${phase}`,
    );
  return call;
}
