// Pure: what a swarm's subagent and supervisor activities are called with, as plain data.
import { formatBytes } from '@wharf/common';
import type {
  AgentTaskInput,
  SubagentDefinition,
  SubagentInput,
  SubagentRefInput,
} from '../contracts/agent-contracts.js';
import { agentTaskInput, promptedTask } from '../contracts/agent-task-input.js';
import type { DataPlaneIdentity } from '../contracts/data-plane-contracts.js';
import type { ContextPlan } from '../contracts/relevance-pool-contracts.js';
import type { SwarmDefinition, TaskDefinition } from '../contracts/swarm-schema.js';
import { instanceLabel, isLooped } from '../dsl/task-instances.js';
import { COMPACTS_PER_LOOP } from './fold-step.js';
import type { ScheduledInstance } from './plan-step.js';
import { inputRefs, loopManifests } from './result-refs.js';
import { orderedCompacts } from './swarm-report.js';
import { instanceTotal, type SwarmState, taskSpec } from './swarm-state.js';

/** The activity options the swarm sets per call (milliseconds); the workflow's defaults fill the rest. */
export interface CallOptions {
  /** One line shown for the activity in the Web UI. */
  summary: string;
  heartbeatTimeout?: number;
  startToCloseTimeout?: number;
}

/**
 * An agent's own `timeouts` (milliseconds once parsed) as activity options; they win over the defaults.
 *
 * @example
 * ```ts
 * agentTimeouts({ model: 'mock:a', timeouts: { heartbeat: 60_000 } }); // { heartbeatTimeout: 60000 }
 * ```
 */
export function agentTimeouts(agent: SwarmDefinition['agents'][string] | undefined): {
  startToCloseTimeout?: number;
  heartbeatTimeout?: number;
} {
  const timeouts = agent?.timeouts;
  return {
    ...(timeouts?.start_to_close === undefined ? {} : { startToCloseTimeout: timeouts.start_to_close }),
    ...(timeouts?.heartbeat === undefined ? {} : { heartbeatTimeout: timeouts.heartbeat }),
  };
}

/**
 * Options of one instance's subagent activity: its title and description as summary, the
 * run's heartbeat timeout, a script's own timeout plus a minute, then the agent's timeouts.
 *
 * @example
 * ```ts
 * subagentCallOptions({ definition, spec, title: 'count#2 · script' }); // { summary: 'count#2 · script · …' }
 * ```
 */
export function subagentCallOptions(options: {
  definition: SwarmDefinition;
  spec: TaskDefinition;
  /** `<label> · <kind>`, as the event group reads. */
  title: string;
  heartbeatTimeoutMs?: number | undefined;
}): CallOptions {
  const { definition, spec, heartbeatTimeoutMs } = options;
  return {
    summary: `${options.title}${spec.description ? ` · ${spec.description}` : ''}`,
    ...(heartbeatTimeoutMs === undefined ? {} : { heartbeatTimeout: heartbeatTimeoutMs }),
    ...(spec.script?.timeout_ms === undefined
      ? {}
      : { startToCloseTimeout: spec.script.timeout_ms + 60_000 }),
    ...agentTimeouts(spec.agent === undefined ? undefined : definition.agents[spec.agent]),
  };
}

/** Where a run's subagents and supervisor run, from the workflow's input. */
export interface RunPlace {
  ownerId: string;
  /** The swarm's workflow id: scopes artifacts and outputs. */
  workflowId: string;
  workdir?: string | undefined;
  heartbeatTimeoutMs?: number | undefined;
  /** The run's data plane, carried to every subagent and supervisor. */
  dataPlane?: DataPlaneIdentity | undefined;
  /** A re-run's earlier runs, whose outputs its subagents read as the run's own. */
  readRuns?: readonly string[] | undefined;
}

/** What the workflow needs to run one instance. */
export interface SubagentCall {
  /** `task`, or `task#i` for a loop instance. */
  label: string;
  /** `<label> · script`, `<label> · agent <name>` or `<label> · swarm <file>`: the event group's name. */
  title: string;
  options: CallOptions;
  input: SubagentInput;
}

/**
 * What one instance's subagent is given (its resolved inputs, its IN_REFS: every out id of the
 * tasks it depends on, or the manifest of a loop with many; a stored map item's index; its
 * context plan) and the options of its activity.
 *
 * @example
 * ```ts
 * const call = subagentCall(state, { task: 'report', instance: 0, inputs: {} }, place, undefined);
 * call.input.inRefs; // ['out_…'] of report's dependencies
 * ```
 */
export function subagentCall(
  state: SwarmState,
  item: ScheduledInstance,
  place: RunPlace,
  context: ContextPlan | undefined,
): SubagentCall {
  const { definition } = state;
  const spec = taskSpec(state, item.task);
  const label = instanceLabel(item.task, spec, item.instance);
  const title = `${label} · ${spec.script !== undefined ? 'script' : spec.swarm !== undefined ? `swarm ${spec.swarm}` : `agent ${spec.agent ?? ''}`}`;
  const agent = spec.agent === undefined ? undefined : definition.agents[spec.agent];
  const { refs, manifests } = inputRefs(state, item.task);
  const omit = resultOmissions(state, item);
  const input: SubagentInput = {
    swarm: definition.name,
    ownerId: place.ownerId,
    workflowId: place.workflowId,
    task: item.task,
    instance: item.instance,
    definition: spec,
    ...(agent === undefined ? {} : { agent }),
    ...(definition.limits === undefined ? {} : { limits: definition.limits }),
    ...(definition.sandbox === undefined ? {} : { sandbox: definition.sandbox }),
    inputs: item.inputs,
    ...(place.workdir === undefined ? {} : { workdir: place.workdir }),
    ...(context === undefined ? {} : { context }),
    inRefs: refs,
    ...(manifests.length === 0 ? {} : { inManifests: manifests }),
    ...(item.stored === undefined ? {} : { storedItem: item.stored }),
    ...(isLooped(spec) ? { loopTotal: instanceTotal(state, item.task) } : {}),
    ...(place.dataPlane === undefined ? {} : { dataPlane: place.dataPlane }),
    ...(place.readRuns === undefined || place.readRuns.length === 0 ? {} : { readRuns: [...place.readRuns] }),
    ...(omit.length === 0 ? {} : { omit }),
  };
  const options = subagentCallOptions({
    definition,
    spec,
    title,
    heartbeatTimeoutMs: place.heartbeatTimeoutMs,
  });
  return { label, title, options, input };
}

/**
 * What an instance's `ok` result may leave out (see `SubagentInput.omit`): a script loop's
 * instance past its first {@link COMPACTS_PER_LOOP}, whose compact payload the fold does not keep,
 * leaves that out, and its preview too when neither the task's `output:` path nor a channel reads
 * it. A failed result still carries both (the fold keeps the first failures' compacts), and an
 * agent task always returns its whole result. A 12,000-item map's history then holds refs and
 * figures per instance, not 12,000 texts.
 *
 * @example
 * ```ts
 * resultOmissions(state, { task: 'fan', instance: 7, inputs: {} }); // ['compact', 'preview']
 * resultOmissions(state, { task: 'fan', instance: 0, inputs: {} }); // []
 * ```
 */
export function resultOmissions(
  state: SwarmState,
  item: Pick<ScheduledInstance, 'task' | 'instance'>,
): ('compact' | 'preview')[] {
  const spec = taskSpec(state, item.task);
  if (spec.script === undefined || !isLooped(spec) || item.instance < COMPACTS_PER_LOOP) return [];
  const channels = state.channelTargets.get(item.task)?.success ?? [];
  return spec.output === undefined && channels.length === 0 ? ['compact', 'preview'] : ['compact'];
}

/** What the workflow needs to run the supervisor. */
export interface SupervisorCall {
  /** One line shown for its child workflow in the Web UI. */
  summary: string;
  input: AgentTaskInput;
}

/**
 * The swarm's supervisor as an agent task (`agentTaskWorkflow`, task `supervisor`): its prompt is
 * the question and every compact payload in task order, its evidence is mounted under the
 * budget before each model call, and it may spawn the swarm's agents when its tools name
 * `spawn_worker`. A loop with more outputs than it lists inline is given by its manifest
 * (`inManifests`), which its compact summary names. `undefined` when the swarm has no
 * supervisor or its agent is missing.
 *
 * @example
 * ```ts
 * const call = supervisorCall(state, place);
 * call?.input.supervisor?.compacts; // one per finished instance
 * ```
 */
export function supervisorCall(state: SwarmState, place: RunPlace): SupervisorCall | undefined {
  const { definition } = state;
  const supervisor = definition.supervisor;
  const agent = supervisor === undefined ? undefined : definition.agents[supervisor.agent];
  if (supervisor === undefined || agent === undefined) return undefined;
  const manifests = loopManifests(state);
  const task = promptedTask(
    {
      swarm: definition.name,
      ownerId: place.ownerId,
      workflowId: place.workflowId,
      limits: definition.limits,
      sandbox: definition.sandbox,
      workdir: place.workdir,
      dataPlane: place.dataPlane,
      readRuns: place.readRuns === undefined ? undefined : [...place.readRuns],
    },
    {
      task: 'supervisor',
      agentName: supervisor.agent,
      agent,
      prompt: supervisor.question,
      inputs: {},
      // A wide loop's compacts show a few instances and name its manifest: it may read the rest.
      inManifests: manifests,
    },
  );
  return {
    summary: `supervisor · ${supervisor.agent} · budget ${formatBytes(supervisor.evidence_budget_bytes)}`,
    input: agentTaskInput(task, {
      heartbeatTimeoutMs: place.heartbeatTimeoutMs,
      agents: definition.agents,
      supervisor: {
        question: supervisor.question,
        budgetBytes: supervisor.evidence_budget_bytes,
        compacts: orderedCompacts(state),
      },
    }),
  };
}

/**
 * A script instance's input as `runSubagent` is called with it: what every instance of its
 * task shares (stored once per run, see `storeSubagentDefinition`), and what is its own and its
 * run's, to which `definitionRef` will name the stored part.
 *
 * @example
 * ```ts
 * const { definition, own } = splitSubagentInput(call.input);
 * await runSubagent({ ...own, definitionRef: await storeSubagentDefinition({ ownerId, workflowId, definition }) });
 * ```
 */
export function splitSubagentInput(input: SubagentInput): {
  definition: SubagentDefinition;
  own: Omit<SubagentRefInput, 'definitionRef'>;
} {
  const { ownerId, workflowId, instance, inputs, dataPlane, readRuns, omit, ...definition } = input;
  return {
    definition,
    own: {
      ownerId,
      workflowId,
      task: input.task,
      instance,
      inputs,
      ...(dataPlane === undefined ? {} : { dataPlane }),
      ...(readRuns === undefined ? {} : { readRuns }),
      ...(omit === undefined ? {} : { omit }),
    },
  };
}
