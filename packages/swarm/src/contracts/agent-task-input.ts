// Workflow-safe: the one way an agent task's input is made. Pure, no imports with effects.

import type { AgentTaskInput, SubagentInput, SupervisorTask } from './agent-contracts.js';
import type { SwarmDefinition, TaskDefinition } from './swarm-schema.js';
import { spawnWorkerToolName } from './tool-names.js';

/** An agent as the swarm defines it. */
type AgentDefinition = SwarmDefinition['agents'][string];

/** What {@link agentTaskInput} adds to a subagent's input. */
export interface AgentTaskOptions {
  /** The swarm's heartbeat timeout, for the agent's step activities. */
  heartbeatTimeoutMs?: number | undefined;
  /**
   * The swarm's agents: given to an agent whose `tools` name `spawn_worker` as the ones it may
   * start. Leave out for a spawned worker, which may not spawn in turn.
   */
  agents?: SwarmDefinition['agents'] | undefined;
  /** A spawned worker's parent instance (`review#2`): its held tool calls show with that one. */
  owner?: string | undefined;
  /** Set for the swarm's supervisor. */
  supervisor?: SupervisorTask | undefined;
}

/**
 * The input of an `agentTaskWorkflow`, for a swarm's agent task instance, its supervisor or a
 * spawned worker alike: the subagent's input, the swarm's heartbeat timeout, the agents it may
 * spawn (only when its tools name `spawn_worker`), and its owner or supervisor task.
 *
 * @example
 * ```ts
 * const input = agentTaskInput(call.input, { heartbeatTimeoutMs: 20_000, agents: definition.agents });
 * input.spawnable; // the swarm's agents, when call.input.agent.tools names spawn_worker
 * ```
 */
export function agentTaskInput(
  subagent: SubagentInput & { agent: AgentDefinition },
  options: AgentTaskOptions = {},
): AgentTaskInput {
  return {
    ...subagent,
    ...(options.heartbeatTimeoutMs === undefined ? {} : { heartbeatTimeoutMs: options.heartbeatTimeoutMs }),
    ...(options.agents !== undefined && subagent.agent.tools.includes(spawnWorkerToolName)
      ? { spawnable: options.agents }
      : {}),
    ...(options.owner === undefined ? {} : { owner: options.owner }),
    ...(options.supervisor === undefined ? {} : { supervisor: options.supervisor }),
  };
}

/** Whose run a {@link promptedTask} belongs to, and what it inherits from it. */
export type PromptedTaskRun = Pick<SubagentInput, 'swarm' | 'ownerId' | 'workflowId'> & {
  [Key in 'limits' | 'sandbox' | 'workdir' | 'dataPlane' | 'readRuns']?: SubagentInput[Key] | undefined;
};

/**
 * A subagent input for an agent given a prompt rather than a task of the definition (the
 * supervisor, a spawned worker): one instance, no dependencies, no context, no IN_REFS.
 *
 * @example
 * ```ts
 * promptedTask(run, { task: 'supervisor', agentName: 'lead', agent, prompt: 'What broke?', inputs: {} });
 * ```
 */
export function promptedTask(
  run: PromptedTaskRun,
  task: {
    task: string;
    agentName: string;
    agent: AgentDefinition;
    prompt: string;
    inputs: Record<string, unknown>;
    inManifests?: string[] | undefined;
  },
): SubagentInput & { agent: AgentDefinition } {
  const definition: TaskDefinition = {
    agent: task.agentName,
    prompt: task.prompt,
    depends_on: [],
    inject_context: false,
    inputs: {},
  };
  return {
    swarm: run.swarm,
    ownerId: run.ownerId,
    workflowId: run.workflowId,
    task: task.task,
    instance: 0,
    definition,
    agent: task.agent,
    ...(run.limits === undefined ? {} : { limits: run.limits }),
    ...(run.sandbox === undefined ? {} : { sandbox: run.sandbox }),
    inputs: task.inputs,
    inRefs: [],
    ...(task.inManifests === undefined || task.inManifests.length === 0
      ? {}
      : { inManifests: task.inManifests }),
    ...(run.workdir === undefined ? {} : { workdir: run.workdir }),
    ...(run.dataPlane === undefined ? {} : { dataPlane: run.dataPlane }),
    // A re-run's agent reads (and its supervisor mounts the evidence of) what it reused.
    ...(run.readRuns === undefined || run.readRuns.length === 0 ? {} : { readRuns: [...run.readRuns] }),
  };
}
