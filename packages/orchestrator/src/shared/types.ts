// Plain JSON types shared by the workflow, its activities and the client.
// Workflow-safe: no imports with side effects, no Node APIs.

import type { SandboxSettings } from './sandbox-schema.js';
import type { SwarmDefinition } from './swarm-schema.js';

/**
 * Which data plane (output store and body store) a run's outputs belong to. The client puts
 * its own in the swarm's input; it travels in every activity and child workflow input, and a
 * worker of another data plane refuses the work (`WharfWrongDataPlane`, non-retryable).
 */
export interface DataPlaneIdentity {
  /** Equal for every process that opens the same store and bodies; see `dataPlaneIdentity`. */
  id: string;
  /** Where it is, without credentials (`store …`, `, blobs …` when configured): for messages. */
  description: string;
}

/** A stored output's handle, as it travels through workflow history. */
export interface OutputRefJson {
  outId: string;
}

/** Lifecycle of one task (or one loop instance of it). */
export type TaskStatus = 'pending' | 'waiting' | 'running' | 'done' | 'failed' | 'skipped' | 'cancelled';

/**
 * A task's own state as the swarm workflow keeps it and carries across continue-as-new. What
 * it produced (out ids, bytes, instances done) is not here: its `results:<task>` channel holds it.
 */
export interface TaskState {
  status: TaskStatus;
  /** Paths its inputs are still waiting for (`approval` while its gate holds it). */
  waitingFor: string[];
  /** Why it failed, was skipped or cancelled. */
  reason?: string;
  /** Workflow-clock milliseconds. */
  startedAt?: number;
  endedAt?: number;
  /** A map loop's instance count, once its list resolved. */
  total?: number;
  /** A map loop over a stored list: the index of its items once built, or why it could not be. */
  items?: MapItems;
  /** Its `approval:` gate, once opened or answered. */
  approval?: ApprovalState;
}

/**
 * The list a map loop runs over when it is stored (a task's output, a loop's results): the
 * source it was read from and the index its instances read their items through, or why the
 * source is no list. The items themselves never enter the workflow.
 */
export type MapItems = {
  /** The stored list: a task's output, or a manifest. */
  source: string;
  /** For a manifest: the instance status its entries are kept for (`ok`, `failed`). */
  status?: string;
} & ({ index: string; count: number; format: 'line' | 'json' } | { error: string });

/** What `indexItems` is asked: index the items of a stored list for a map loop. */
export interface IndexItemsInput {
  workflowId: string;
  ownerId: string;
  task: string;
  source: string;
  status?: string;
  /** More items than this is refused (the loop's `max_items`). */
  maxItems: number;
  dataPlane?: DataPlaneIdentity;
  /** A re-run's earlier runs: a source stored by one of them may be indexed like the run's own. */
  readRuns?: string[];
}

/** One part of a loop's stored results: a chunk of instance records, or the manifest naming the chunks. */
export type ManifestPartInput = {
  workflowId: string;
  ownerId: string;
  task: string;
  dataPlane?: DataPlaneIdentity;
} & (
  | { part: 'chunk'; seq: number; entries: InstanceRecord[] }
  /** The loop's manifest, or (`seq`) one folding its first chunks. */
  | { part: 'manifest'; seq?: number; chunks: { outId: string; count: number; manifest?: true }[] }
);

/**
 * One loop instance as its task's stored results (its manifest) keep it. `preview` and `message`
 * are kept only for a task with an `output` path (its value there is the list of them).
 */
export interface InstanceRecord {
  instance: number;
  status: 'ok' | 'failed' | 'cancelled';
  outIds: string[];
  bytes: number;
  exitCode?: number | null;
  preview?: string;
  /** A failed instance: the end of its stderr. */
  message?: string;
}

/** What the `progress` query reports for one task. */
export interface TaskProgress {
  task: string;
  status: TaskStatus;
  /** Loop instances: how many finished of how many. */
  instances: { done: number; total: number };
  /** Bytes of stdout + stderr captured so far (from heartbeats) or in total when finished. */
  bytesCaptured: number;
  /**
   * Out ids of everything the task EMITted, instances in order, while a loop has at most 64 of
   * them; past that none here: they are in {@link manifest} (see {@link outCount}).
   */
  outIds: string[];
  /** How many out ids the task has, when `outIds` does not list them all. */
  outCount?: number;
  /** A loop's stored results, once it ended: a manifest of one record per instance (`InstanceRecord`). */
  manifest?: string;
  /** A loop whose instances failed: how many, and the first few with their reasons. */
  failures?: { count: number; first: { instance: number; reason: string }[] };
  /** Paths the task's inputs are still waiting for. */
  waitingFor: string[];
  /** Why the task failed, was skipped or cancelled. */
  reason?: string;
  /** Workflow-clock milliseconds: when it started, when it ended. */
  startedAt?: number;
  endedAt?: number;
  /** Model usage of an agent task's instances that finished, summed. */
  usage?: AgentUsage;
  /** Instances whose results a re-run folded from the run it re-runs, instead of running them. */
  reused?: number;
  /** The task's `approval:` gate, once the task reached it (or was answered early). */
  approval?: ApprovalState;
  /**
   * What its running subagents are doing, from their heartbeats: filled in by
   * `WharfClient.progress`, never by the workflow.
   */
  live?: LiveInstance[];
}

/** A task's approval gate as the workflow records it. */
export interface ApprovalState {
  prompt?: string;
  /** Workflow time the task reached the gate (could have run but for the approval). */
  requestedAt?: number;
  /** Workflow time an unanswered gate is decided by its `on_timeout`. */
  deadline?: number;
  decision?: 'approved' | 'rejected';
  comment?: string;
  /** Who answered (free text, e.g. a user name). */
  by?: string;
  decidedAt?: number;
  /** The decision is the gate's `on_timeout`, nobody answered. */
  timedOut?: boolean;
}

/** Argument of the `addInputs` update: `†input.*` values by key. */
export interface AddInputsRequest {
  values: Record<string, unknown>;
  /** Replace keys that already hold a value; without it such a request is refused. */
  replace?: boolean;
}

/** What the `addInputs` update returns: the keys that were new and those that replaced a value. */
export interface AddInputsResult {
  added: string[];
  replaced: string[];
}

/** Argument of the `approveTask` update. */
export interface ApproveTaskRequest {
  task: string;
  /** `true` approves, `false` rejects. */
  approve: boolean;
  comment?: string;
  by?: string;
}

/** What the `approveTask` update returns. */
export interface ApproveTaskResult {
  task: string;
  decision: 'approved' | 'rejected';
  /** The task's status when the update was handled (it runs at the next step once approved). */
  status: TaskStatus;
}

/**
 * What a running subagent reports in its heartbeat details (every field but `task` optional:
 * a script reports bytes, an agent its step and the tools it called).
 */
export interface SubagentHeartbeat {
  task: string;
  instance?: number;
  /** Bytes of output captured so far. */
  bytes?: number;
  /** Agent steps finished so far. */
  step?: number;
  /** Tool calls of the agent so far, oldest first (names only; the last few). */
  toolCalls?: string[];
}

/** One running subagent, as {@link TaskProgress.live} shows it. */
export interface LiveInstance {
  instance?: number;
  /** The activity type (`runSubagent`, or a per-step activity). */
  activity: string;
  attempt: number;
  bytes?: number;
  step?: number;
  toolCalls?: string[];
}

/** What the `progress` query returns. */
export interface SwarmProgress {
  swarm: string;
  /** `waiting` while an approval gate or a tool call waits for a person (other tasks may run). */
  status: 'running' | 'waiting' | 'supervising' | 'completed' | 'failed';
  step: number;
  tasks: TaskProgress[];
  /** Tool calls of agent tasks that wait for an answer (`wharf approve <run> <task> --call <id>`). */
  pendingToolCalls?: PendingToolCall[];
}

/**
 * A tool call an agent task holds until a person answers it: its agent's `tools` entry says
 * `approval` (for every call, or for calls whose arguments match). Its agent workflow waits;
 * the swarm shows it like a gate.
 */
export interface PendingToolCall {
  /** The agent task's label as `wharf approve` names it: `review`, `review#2`, `supervisor`, `review.spawn-1`. */
  task: string;
  /** The model's tool call id: `wharf approve <run> <task> --call <id>`. */
  callId: string;
  tool: string;
  /** The call's arguments as JSON, cut to a few hundred characters. */
  arguments: string;
  prompt?: string;
  /** Workflow time the call started waiting. */
  requestedAt: number;
  /** Workflow time an unanswered call is decided by its `on_timeout`. */
  deadline?: number;
  /** The agent workflow that waits on it: the `approveToolCall` update goes there. */
  workflowId: string;
  /** The swarm's task instance it belongs to (`review#2`; for a spawned worker, its parent's). */
  owner: string;
}

/** What an agent workflow tells its swarm about one of its tool calls: it waits, or no longer. */
export interface ToolCallNotice {
  call: PendingToolCall;
  open: boolean;
}

/** Argument of the `approveToolCall` update (sent to the agent workflow that waits). */
export interface ApproveToolCallRequest {
  callId: string;
  /** `true` approves (the call runs), `false` rejects (the model is told, the call does not run). */
  approve: boolean;
  comment?: string;
  by?: string;
}

/** What the `approveToolCall` update returns. */
export interface ApproveToolCallResult {
  task: string;
  callId: string;
  tool: string;
  decision: 'approved' | 'rejected';
}

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
  'ownerId' | 'workflowId' | 'instance' | 'inputs' | 'dataPlane' | 'readRuns'
>;

/**
 * What `runSubagent` is called with for one instance of a script task's loop: what is its own (its
 * instance, its inputs), whose run it is (owner, workflow, lineage and data plane, against which
 * the stored definition is checked), and its task's stored {@link SubagentDefinition} by ref.
 */
export type SubagentRefInput = Pick<
  SubagentInput,
  'ownerId' | 'workflowId' | 'task' | 'instance' | 'inputs' | 'dataPlane' | 'readRuns'
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

/**
 * One finished subagent's main output in the swarm's context pool: metadata only, the body
 * stays in the output store. Later tasks' contexts are chosen from the pool, and
 * `hooks.post_task` pruning removes entries from it (never from the store).
 */
export interface ContextPoolEntry {
  /** The task, or `task#i` for a loop instance. */
  taskId: string;
  task: string;
  /** The main output (the first the subagent EMITted). */
  outId: string;
  /** Workflow time (epoch ms) the output was folded in. */
  completedAt: number;
  /** Workflow time the output was last placed in a context (for LRU pruning). */
  lastAccessed: number;
  /** Highest relevance the output had in any context it was placed in; 0 until then. */
  relevanceScore: number;
  agent?: string;
}

/** The swarm's context pool, carried across continue-as-new. */
export interface ContextPool {
  entries: ContextPoolEntry[];
  /** Outputs added to the pool since the swarm started. */
  added: number;
  /** Per `hooks.post_task` entry (by index): the value of `added` when it last pruned. */
  checkpoints: number[];
  lastPrunedAt?: number;
}

/** One earlier output chosen for a task's context, in the order the context shows it. */
export interface ContextPlanEntry {
  taskId: string;
  outId: string;
  relevance: number;
  /** Shown as a tombstone with its size and out id (`context_masking`); absent when shown. */
  masked?: true;
}

/**
 * A loop the context shows only some outputs of (the pool keeps a loop's newest few): how many
 * it shows, how many there are, and the manifest that lists them all once the loop has ended.
 */
export interface ContextLoopNote {
  task: string;
  /** Outputs of the loop's instances among the context's entries. */
  shown: number;
  /** Instances of the loop that ended `ok` so far. */
  total: number;
  /** The loop's manifest (chunks of one record per instance, with its out ids); absent while it runs. */
  manifest?: string;
}

/** What a task's context holds: chosen by the workflow (by relevance), read and cut by the activity. */
export interface ContextPlan {
  entries: ContextPlanEntry[];
  maxBytes: number;
  maxTasks: number;
  /** Loops with more outputs than the context shows: named, with their manifests; absent when none. */
  loops?: ContextLoopNote[];
}

/** What the context planner knows of one loop beyond its pooled outputs. */
export interface ContextLoopOutputs {
  /** Instances that ended `ok` (each with a main output). */
  ok: number;
  /** The loop's manifest, once it has ended. */
  manifest?: string;
}

/** Input of the `planContext` local activity: choose the contexts of the tasks about to run. */
export interface PlanContextInput {
  definition: SwarmDefinition;
  pool: ContextPool;
  /** Tasks about to run (each instance of a task gets the same context). */
  tasks: string[];
  /** Workflow time (epoch ms). */
  now: number;
  /** Per loop task with folded instances: its `ok` count and manifest (O(loop tasks), never O(instances)). */
  loops?: Record<string, ContextLoopOutputs>;
}

/** Input of the `pruneContext` local activity. */
export interface PruneContextInput {
  definition: SwarmDefinition;
  pool: ContextPool;
  hook: NonNullable<SwarmDefinition['hooks']>['post_task'][number]['checkpoint_and_prune'];
  /** Outputs added since this hook last pruned. */
  sinceCheckpoint: number;
  now: number;
  /** Tasks still to run: the outputs of the tasks they depend on are never pruned. */
  pending?: string[];
}

/** Size and shape of a swarm's context pool at the end. */
export interface SwarmContextMetrics {
  /** Bytes of the pooled outputs as stored (a deleted one counts 0). */
  totalBytes: number;
  taskCount: number;
  /** Outputs over the swarm's `max_context_bytes` (a context shows them cut; the store keeps them whole). */
  truncatedCount: number;
  /** Outputs whose body lives in the output store (all of them). */
  externalCount: number;
  /** Mean relevance score, 0 when the pool is empty. */
  avgRelevance: number;
  /** Workflow time (epoch ms) of the last prune, or null. */
  lastPrunedAt: number | null;
}

/** What a finished subagent hands back to the workflow. Bounded in size whatever the output. */
export interface SubagentResult {
  status: 'ok' | 'failed';
  /** Everything the subagent EMITted; the first is its main output. */
  outputs: OutputRefJson[];
  /** `formatSpawnResult` text: status, tool index, summary, evidence marker (≈1 KB). */
  compact: string;
  /** Bytes the subagent produced in total (before any truncation). */
  bytes: number;
  exitCode?: number | null;
  signal?: string | null;
  timedOut?: boolean;
  durationMs: number;
  /** A short preview of the output (a few hundred bytes), for `†` wiring and the UI. */
  preview: string;
  /** The last lines of stderr when the task failed. */
  stderrTail?: string;
  /** Tokens (and cost, when the model has a price) of an agent task's model calls. */
  usage?: AgentUsage;
  /** A supervisor task's answer, as the swarm result reports it. */
  supervisor?: SuperviseResult;
  /** Set when the swarm folded this result from an earlier run instead of running the task (a re-run). */
  reused?: boolean;
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

/** Arguments of `swarmWorkflow`. */
export interface SwarmWorkflowInput {
  definition: SwarmDefinition;
  /** Values for `†input.*` references. */
  input?: Record<string, unknown>;
  ownerId?: string;
  /** Continue as new once history has this many events (server suggests at 4,096 events or 4 MiB). */
  historyEventLimit?: number;
  /** Most activities in flight at once (server cap: 2,000 pending per run). Default 200. */
  maxConcurrentTasks?: number;
  /** A subagent that sends no heartbeat for this long is retried elsewhere. Default 20 s. */
  heartbeatTimeoutMs?: number;
  /** Directory scripts run in, on the worker (a script's `cwd` is relative to it). Default: the worker's. */
  workdir?: string;
  /** When nothing can run and tasks wait on `†input.*` paths, wait this long for an `addInput` signal. Default 0. */
  waitForInputsMs?: number;
  /** Most entries the context pool keeps (newest, those unfinished tasks read first). Default 500. */
  contextPoolCap?: number;
  /**
   * The data plane the run's outputs belong to (the client's): every subagent and agent step
   * carries it, and a worker of another data plane refuses them. Absent: no check.
   */
  dataPlane?: DataPlaneIdentity;
  /** State carried across continue-as-new. */
  carried?: CarriedState;
  /** Set on a re-run (`WharfClient.rerun`, `wharf rerun`): the run it re-runs, and from which task. */
  rerunOf?: RerunOrigin;
  /**
   * Results of an earlier run the swarm folds as they are instead of running the tasks again
   * (a re-run's reused tasks); dropped from the input once folded, at continue-as-new.
   */
  reuse?: ReusedResults;
}

/** Where a re-run comes from. */
export interface RerunOrigin {
  /** The workflow id of the run it re-runs. */
  workflowId: string;
  /** The task it re-runs from (it and everything downstream run again). */
  from: string;
  /**
   * The runs whose stored outputs the reused results name: the run it re-runs and, when that one
   * was a re-run too, the runs it reused from. A wide join's token may read their outputs.
   */
  readsFrom?: string[];
}

/**
 * Per task, what an earlier run folded: per loop instance (index = instance), the
 * {@link SubagentResult} exactly as the fold sees a result (out ids, compact, preview, exit code,
 * usage), folded through the normal fold path, so channels, context values and join barriers
 * come out as if the task had run; or, for a loop wider than `REUSED_WHOLE_FROM` (64) instances,
 * a {@link ReusedLoop}: its summary and manifest, so what a re-run carries does not grow with the
 * loop. Either way no process starts and no model is called.
 */
export type ReusedResults = Record<string, SubagentResult[] | ReusedLoop>;

/**
 * A loop an earlier run ended with every instance `ok`, reused whole: the re-run records its
 * summary and its manifest of instance records (the earlier run's) at once, instead of folding
 * each instance. Its `output:` path gets the stored list of the manifest. It adds no context pool
 * entries and no compact payloads for the supervisor (a wide loop's outputs are read through its
 * stored list), and a loop writing `†channels` is never reused this way.
 */
export interface ReusedLoop {
  loop: {
    /** Instances, every one `ok`. */
    total: number;
    /** The manifest naming the chunks of its instance records. */
    manifest: string;
    /** Bytes its instances produced. */
    bytes: number;
    /** Out ids in all, and the out ids themselves while there are at most 64. */
    outCount: number;
    outIds: string[];
    usage?: AgentUsage;
  };
}

/** State carried across continue-as-new: each part has one home, nothing is carried twice. */
export interface CarriedState {
  /** Supersteps run so far, across the chain. */
  step: number;
  /** The channel snapshot: `results:<task>` (what each task produced), join barriers, user channels. */
  channels: unknown;
  /** The context's messages (`†input`, `†data`, …). */
  context: unknown[];
  /** Each task's own state, by name. */
  tasks: Record<string, TaskState>;
  /** Each finished instance's compact payload, by label (the supervisor's input). */
  compacts: Record<string, string>;
  /** Continue-as-new runs before the one that receives this. */
  generation: number;
  /** The context pool. */
  contextPool: ContextPool;
  /**
   * Tasks cut by a history bound in the middle of their loop: the next run starts their
   * instances from `instances.done` on before planning anything else.
   */
  resume?: string[];
  /** Tool calls of agent tasks still waiting for an answer. */
  pendingToolCalls?: PendingToolCall[];
}

/** What `swarmWorkflow` returns. */
export interface SwarmResult {
  swarm: string;
  status: 'completed' | 'failed';
  /** Out ids per task (loop instances in order); a loop with more than 64: see {@link manifests}. */
  outputs: Record<string, string[]>;
  /** Per loop task, the manifest of its instances' results (every out id, status, bytes). */
  manifests?: Record<string, string>;
  tasks: TaskProgress[];
  supervisor?: SuperviseResult;
  metrics: {
    totalBytes: number;
    taskCount: number;
    failedCount: number;
    /** Tasks skipped: their inputs could no longer be written, or a dependency did not finish well. */
    skippedCount?: number;
    continuedAsNew: number;
    /** The context pool that later tasks' contexts were chosen from (absent if it could not be measured). */
    context?: SwarmContextMetrics;
    /** Model usage of every agent task and the supervisor, summed (absent when no model was called). */
    usage?: AgentUsage;
  };
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
