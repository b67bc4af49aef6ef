import { Context } from '@temporalio/activity';
import type { ArtifactStore } from '@wharf/evidence';
import type { OutputStore } from '@wharf/output-store';
import type { ProcessGroupRegistry, ProcessSpawner } from '@wharf/stdio-limits';
import type { SpawnedWorker, SubagentHeartbeat, SubagentInput } from '@wharf/swarm';
import type { ToolSet } from 'ai';
import { type SubagentIds, subagentIds } from '../activities/activity-identity.js';
import type { MapItemReads } from '../activities/map-item-reads.js';
import { spillDirectory } from '../activities/spill-directory.js';
import type { SubagentContexts } from '../activities/subagent-contexts.js';
import type { WorkerSandbox } from '../activities/worker-sandbox.js';
import type { ModelRegistry } from '../models/model-registry.js';
import type { WharfTracing } from '../tracing/wharf-tracing.js';
import { type AgentBrief, agentBriefSchema, briefIdentity } from './agent-brief.js';
import type { AgentToolsOptions } from './agent-tools.js';

/** What the agent activities need. */
export interface AgentActivityDependencies {
  store: OutputStore;
  artifacts: ArtifactStore;
  models: ModelRegistry;
  /** Tools registered with the worker, selectable by `agents.<name>.tools`. */
  tools: ToolSet;
  /** The worker's work directory: spill files of tool calls live here until handed over. */
  workDir: string;
  env: NodeJS.ProcessEnv;
  processGroups?: ProcessGroupRegistry;
  /** Starts the `shell` tool's commands (see `ActivityDependencies.spawner`). */
  spawner?: ProcessSpawner;
  /** Confines the `shell` tool's commands. */
  sandbox?: WorkerSandbox;
  /** Traces each model call and tool call (OpenTelemetry); default off. */
  tracing?: WharfTracing;
  /** Renders agents' contexts once for all that share one (a map of agents). */
  contexts: SubagentContexts;
  /** Reads map items, a map's shared bodies once per worker (see {@link MapItemReads}). */
  mapItems: MapItemReads;
}

/** Most bytes of one tool output the model is shown; the rest is in the stores. */
export const TOOL_OUTPUT_BUDGET = 16_000;

/**
 * The ids of the agent task the current activity belongs to: keyed by its agent workflow
 * (id and run), which every step of the task shares and Temporal keeps across retries.
 *
 * @example
 * ```ts
 * const ids = agentIdentity(input); // ids.emitKeyPrefix === '<agent workflow id>/<run id>/agent'
 * ```
 */
export function agentIdentity(
  task: Pick<SubagentInput, 'task' | 'instance' | 'workflowId' | 'ownerId' | 'definition'>,
): SubagentIds {
  const info = Context.current().info;
  return subagentIds(task, {
    workflowId: info.workflowExecution?.workflowId ?? 'standalone',
    runId: info.workflowExecution?.runId ?? 'standalone',
    activityId: 'agent',
  });
}

/** Reads a stored brief and the ids of its task. */
export async function loadBrief(
  store: OutputStore,
  outId: string,
): Promise<{ brief: AgentBrief; ids: SubagentIds }> {
  const { body } = await store.get({ outId });
  const brief = agentBriefSchema.parse(JSON.parse(Buffer.from(body).toString('utf8'))) as AgentBrief;
  return { brief, ids: agentIdentity(briefIdentity(brief) as never) };
}

/** The options of `agentTools` for one step of the current activity. */
export function agentToolsOptions(
  dependencies: AgentActivityDependencies,
  brief: AgentBrief,
  ids: SubagentIds,
  call: { emitKey: string; spillDir?: string; heartbeat?: SubagentHeartbeat; spawned?: SpawnedWorker },
): AgentToolsOptions {
  const context = Context.current();
  return {
    brief,
    ids,
    store: dependencies.store,
    artifacts: dependencies.artifacts,
    workerTools: dependencies.tools,
    emitKey: call.emitKey,
    ...(call.spawned === undefined ? {} : { spawned: call.spawned }),
    builtin: {
      workdir: brief.workdir ?? process.cwd(),
      limits: brief.limits,
      budgetBytes: TOOL_OUTPUT_BUDGET,
      spillDir: call.spillDir ?? spillDirectory(dependencies.workDir, ids.workerId, 'unused'),
      env: dependencies.env,
      signal: context.cancellationSignal,
      ...(dependencies.processGroups === undefined ? {} : { processGroups: dependencies.processGroups }),
      ...(dependencies.spawner === undefined ? {} : { spawner: dependencies.spawner }),
      ...(dependencies.sandbox === undefined
        ? {}
        : { sandbox: { worker: dependencies.sandbox, settings: brief.sandbox } }),
      onProgress: (bytes: number) =>
        context.heartbeat({ ...(call.heartbeat ?? { task: brief.task }), bytes }),
    },
  };
}
