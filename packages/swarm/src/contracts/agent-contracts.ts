// What an agent task exchanges with its activities and its swarm.
// Plain JSON types; workflow-safe: no imports with side effects, no Node APIs.

import type {
  DataPlaneIdentity,
  IndexItemsInput,
  ManifestPartInput,
  OutputRefJson,
} from './data-plane-contracts.js';
import type {
  ContextPlan,
  ContextPool,
  PlanContextInput,
  PruneContextInput,
  SwarmContextMetrics,
} from './relevance-pool-contracts.js';
import type { SandboxSettings } from './sandbox-schema.js';
import type { SwarmDefinition } from './swarm-schema.js';

/** Input of the `runSubagent` activity: small, whatever the task's data. */
export interface SubagentInput {
  swarm: string;
  ownerId: string;
  /** The swarm's workflow id: scopes artifacts and outputs. */
  workflowId: string;
  task: string;
  /** Loop instance index (0 when the task has no loop). */
  instance: number;
  /** The task as defined (script or agent). */
  definition: SwarmDefinition['tasks'][string];
  /** The agent, for agent tasks. */
  agent?: SwarmDefinition['agents'][string];
  /** Workflow-level limits; the task's own limits are merged over them. */
  limits?: Record<string, unknown>;
  /** Workflow-level sandbox settings; the task's own are merged over them. */
  sandbox?: SandboxSettings;
  /** Resolved `inputs` (small JSON: refs and compact values). */
  inputs: Record<string, unknown>;
  /** Out ids of the outputs of the tasks this one depends on (its IN_REFS). */
  inRefs: string[];
  /**
   * Manifests of the loops this one depends on whose outputs are too many to list: their out ids
   * are part of its IN_REFS too (the worker reads them from the store).
   */
  inManifests?: string[];
  /** A map loop over a stored list: the index this instance reads its `item` through (at `instance`). */
  storedItem?: { index: string; format: 'line' | 'json' };
  /** A loop's instance count, for the agent's prompt (`item 3 of 5000`). */
  loopTotal?: number;
  /** Directory scripts run in (a script's own `cwd` is relative to it). Default: the worker's. */
  workdir?: string;
  /** Earlier outputs chosen for this task's context (Tier 3); absent when it takes none. */
  context?: ContextPlan;
  /** The run's data plane: a worker of another one refuses the task. */
  dataPlane?: DataPlaneIdentity;
  /** A re-run's earlier runs (`RerunOrigin.readsFrom`): their outputs may be read like the run's own. */
  readRuns?: string[];
  /**
   * What an `ok` result leaves out, for a script loop's instance whose text the fold does not
   * keep (past its first few): its compact payload, and its preview when neither an `output:`
   * path nor a channel reads it. A failed result carries both. Set by `subagentCall`, so that a
   * wide map's history holds refs and figures per instance, not text.
   */
  omit?: ('compact' | 'preview')[];
}

/**
 * What every instance of a script task's loop is given alike: the task as defined, the swarm's
 * limits and sandbox, its IN_REFS and their manifests, its context plan, its stored items' index,
 * its loop's size, its working directory. Stored once per run by `storeSubagentDefinition` (the
 * same content gives the same out id) and named by each instance's {@link SubagentRefInput}, so
 * a map of 12,000 items schedules it once, not 12,000 times.
 */
export type SubagentDefinition = Omit<
  SubagentInput,
  'ownerId' | 'workflowId' | 'instance' | 'inputs' | 'dataPlane' | 'readRuns' | 'omit'
>;

/**
 * What `runSubagent` is called with for one instance of a script task's loop: what is its own (its
 * instance, its inputs), whose run it is (owner, workflow, lineage and data plane, against which
 * the stored definition is checked), and its task's stored {@link SubagentDefinition} by ref.
 */
export type SubagentRefInput = Pick<
  SubagentInput,
  'ownerId' | 'workflowId' | 'task' | 'instance' | 'inputs' | 'dataPlane' | 'readRuns' | 'omit'
> & {
  /** Out id of the stored {@link SubagentDefinition}, stored by this run or a run of its lineage. */
  definitionRef: string;
};

/** Input of the `storeSubagentDefinition` local activity. */
export interface StoreSubagentDefinitionInput {
  ownerId: string;
  /** The swarm's workflow id: the definition is stored as this run's. */
  workflowId: string;
  definition: SubagentDefinition;
  /** The run's data plane: a worker of another one refuses the step. */
  dataPlane?: DataPlaneIdentity;
}

/** What a finished subagent hands back to the workflow. Bounded in size whatever the output. */
export interface SubagentResult {
  status: 'ok' | 'failed';
  /** Everything the subagent EMITted; the first is its main output. */
  outputs: OutputRefJson[];
  /**
   * `formatSpawnResult` text: status, tool index, summary, evidence marker (≈1 KB). Absent from
   * an `ok` result whose input asked to omit it (see {@link SubagentInput.omit}).
   */
  compact?: string;
  /** Bytes the subagent produced in total (before any truncation). */
  bytes: number;
  exitCode?: number | null;
  signal?: string | null;
  timedOut?: boolean;
  durationMs: number;
  /**
   * A short preview of the output (a few hundred bytes), for `†` wiring and the UI. Absent from
   * an `ok` result whose input asked to omit it (see {@link SubagentInput.omit}).
   */
  preview?: string;
  /** The last lines of stderr when the task failed. */
  stderrTail?: string;
  /** Tokens (and cost, when the model has a price) of an agent task's model calls. */
  usage?: AgentUsage;
  /** A supervisor task's answer, as the swarm result reports it. */
  supervisor?: SuperviseResult;
  /** Set when the swarm folded this result from an earlier run instead of running the task (a re-run). */
  reused?: boolean;
  /**
   * A result a re-run reuses: when its output entered the context pool, on the earlier run's
   * clock shifted to end at the re-run's start (see `reusePoolTimes`), so its pool entry ranks
   * among the others as it did in the run (epoch ms).
   */
  pooledAt?: number;
}

/**
 * Tokens an agent's model calls used (AI SDK `usage`), summed; `costUsd` when the model
 * registry has a price for the model.
 */
export interface AgentUsage {
  /** Model calls counted. */
  calls: number;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  costUsd?: number;
}

/** The supervisor's answer: inline when small, else a ref to the stored answer. */
export interface SuperviseResult {
  answer: string;
  answerRef?: OutputRefJson;
  /** Bytes of evidence mounted into the model's context (never stored in history). */
  evidenceBytes: number;
  /** Why the supervisor gave no answer (an unknown model, a missing key, a provider error). */
  error?: string;
  /** Tokens (and cost) of the supervisor's model calls. */
  usage?: AgentUsage;
}

/** Input of `agentTaskWorkflow`: the subagent input plus the swarm's heartbeat timeout. */
export interface AgentTaskInput extends SubagentInput {
  heartbeatTimeoutMs?: number;
  /**
   * The swarm's agents this task may start with its `spawn_worker` tool; set only for an
   * agent whose `tools` name it and that is not itself a spawned worker.
   */
  spawnable?: SwarmDefinition['agents'];
  /**
   * The swarm's task instance this agent belongs to, when it is not its own: a spawned worker's
   * parent (`review#2`). Its held tool calls are shown, and dropped, with that instance.
   */
  owner?: string;
  /**
   * Set when this task is the swarm's supervisor: its prompt is
   * the question and the workers' compact payloads, its evidence markers are mounted under
   * `budgetBytes` before each model call, and its result carries a {@link SuperviseResult}.
   */
  supervisor?: SupervisorTask;
}

/** What a durable supervisor is asked: the question and one compact payload per task instance. */
export interface SupervisorTask {
  question: string;
  budgetBytes: number;
  compacts: string[];
}

/** What a `spawn_worker` call asks for, once `agentSpawnRequest` has checked it. */
export interface SpawnRequest {
  /** One of the swarm's agents. */
  agent: string;
  prompt: string;
  inputs: Record<string, unknown>;
}

/**
 * How a `spawn_worker` call ended, as the agent workflow hands it to `agentToolCall`: the
 * spawned worker's compact payload and output refs, or why nothing was spawned.
 */
export type SpawnedWorker =
  | {
      /** The spawned worker's agent workflow id (`<agent workflow>/spawn/<n>`). */
      workflowId: string;
      agent: string;
      status: SubagentResult['status'];
      /** Its `formatSpawnResult` payload: tool index, summary and evidence marker, no bodies. */
      compact: string;
      /** Out ids of what it EMITted. */
      outputs: string[];
    }
  | { error: string };

/**
 * What an agent's step activities carry: the ref of the task's brief (its input, stored by
 * `agentStart`) and the conversation as refs. Bodies never travel through history.
 */
export interface AgentStepInput {
  /** Out id of the stored brief. */
  brief: string;
  /** Out ids of the conversation records, oldest first. */
  conversation: string[];
  /** 0-based model step. */
  step: number;
  /** The run's data plane: a worker of another one refuses the step. */
  dataPlane?: DataPlaneIdentity;
}

/** What `agentStart` returns. */
export interface AgentStartResult {
  brief: string;
  /** The first conversation record (system prompt and task prompt). */
  conversation: string[];
  maxSteps: number;
}

/** A tool call the model asked for, by id (its input stays in the stored step record). */
export interface AgentToolCallRef {
  toolCallId: string;
  toolName: string;
  /**
   * Set when the call waits for a person before it runs (its agent's `tools` entry asks for
   * approval and the call matches): its arguments as people read them, cut short.
   */
  approval?: { arguments: string };
}

/** What `agentModelStep` returns: refs and small metadata only. */
export interface AgentModelStepResult {
  /** Out id of the stored step record (the model's response messages). */
  record: string;
  /** Tool calls to execute, in the order the model made them. */
  toolCalls: AgentToolCallRef[];
  finishReason: string;
  usage: AgentUsage;
  /** Bytes of the model's text in this step. */
  textBytes: number;
  /** A supervisor's step: bytes of evidence mounted into this model call. */
  evidenceBytes?: number;
}

/** Input of `agentToolCall`: one tool call of a stored step. */
export interface AgentToolCallInput {
  brief: string;
  step: number;
  /** Out id of the step record holding the call and its input. */
  record: string;
  toolCallId: string;
  /** 1-based position of the call among the agent's tool calls (its evidence `seq`). */
  seq: number;
  /** For a `spawn_worker` call: the worker the agent workflow ran for it. */
  spawned?: SpawnedWorker;
  /**
   * Set when a person (or the approval's timeout) rejected the call: it does not run, and the
   * model gets this reason as the tool's result.
   */
  rejected?: string;
  /** The run's data plane: a worker of another one refuses the step. */
  dataPlane?: DataPlaneIdentity;
}

/** What `agentToolCall` returns. */
export interface AgentToolCallResult {
  /** Out id of the stored tool-result record the model is shown next. */
  record: string;
  toolName: string;
  /** Bytes of the tool's full output. */
  bytes: number;
  /** The model was shown a cut of it. */
  truncated: boolean;
  failed: boolean;
  /** An output the `emit` tool stored: one of the task's outputs. */
  emitted?: string;
}

/** Input of `agentFinish`. */
export interface AgentFinishInput {
  brief: string;
  conversation: string[];
  /** Out ids the `emit` tool stored, in order. */
  emitted: string[];
  usage: AgentUsage;
  /** Why the loop stopped early (a model or tool step failed for good). */
  error?: string;
  /** A supervisor's most evidence bytes mounted into one model call. */
  evidenceBytes?: number;
  /** The run's data plane: a worker of another one refuses the step. */
  dataPlane?: DataPlaneIdentity;
}

/** The activities of a durable agent task (implemented by `createActivities`). */
export interface AgentActivities {
  agentStart(input: AgentTaskInput): Promise<AgentStartResult>;
  agentModelStep(input: AgentStepInput): Promise<AgentModelStepResult>;
  agentToolCall(input: AgentToolCallInput): Promise<AgentToolCallResult>;
  /** Reads and checks the input of a `spawn_worker` call (its prompt stays out of the parent's history until the child starts). */
  agentSpawnRequest(input: AgentToolCallInput): Promise<SpawnRequest | { error: string }>;
  agentFinish(input: AgentFinishInput): Promise<SubagentResult>;
}

/** The activities the swarm workflow calls (implemented by `createActivities`). */
export interface WharfActivities extends AgentActivities {
  /** A script task's instance: inline, or (as the swarm workflow calls it) its task's stored definition by ref. */
  runSubagent(input: SubagentInput | SubagentRefInput): Promise<SubagentResult>;
  /** Local activity: stores what a script task's instances share, once per run; returns its out id. */
  storeSubagentDefinition(input: StoreSubagentDefinitionInput): Promise<string>;
  /** Indexes a stored list's items for a map loop (one range read per item afterwards). */
  indexItems(
    input: IndexItemsInput,
  ): Promise<{ index: string; count: number; format: 'line' | 'json' } | { error: string }>;
  /** Local activity: stores one part of a loop's results (a chunk, or the manifest) and returns its out id. */
  writeManifestPart(input: ManifestPartInput): Promise<string>;
  /** Local activity: the context of each task about to run (only tasks that get one). */
  planContext(input: PlanContextInput): Promise<Record<string, ContextPlan>>;
  /** Local activity: the task ids a `checkpoint_and_prune` hook removes from the pool. */
  pruneContext(input: PruneContextInput): Promise<string[]>;
  /** Local activity: metrics of the context pool. */
  contextMetrics(input: { definition: SwarmDefinition; pool: ContextPool }): Promise<SwarmContextMetrics>;
}
