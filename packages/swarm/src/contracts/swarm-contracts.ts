// What a swarm run takes and returns, and what it carries into the next run of its chain.
// Plain JSON types; workflow-safe: no imports with side effects, no Node APIs.

import type { AgentUsage, SubagentResult, SuperviseResult } from './agent-contracts.js';
import type { DataPlaneIdentity } from './data-plane-contracts.js';
import type { PendingToolCall, TaskProgress, TaskState } from './progress-contracts.js';
import type { ContextPool, PooledLoopOutput, SwarmContextMetrics } from './relevance-pool-contracts.js';
import type { SwarmDefinition } from './swarm-schema.js';

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
  /**
   * Set on a swarm run as a `swarm:` task of another (a nested swarm): the run and the task
   * that started it. Such a run keeps its tasks' previews for its parent (`SwarmResult.previews`).
   */
  parent?: { workflowId: string; task: string };
  /** A nested run's previews so far, carried across continue-as-new. */
  previews?: Record<string, string>;
  /**
   * A re-run from inside a `swarm:` task's child run (`wharf rerun <run> --from <task>.<inner
   * task>`): per `swarm:` task, how its child run re-runs the child run of the run this one
   * re-runs (its origin and the results it reuses, its own children's in turn) instead of
   * running afresh.
   */
  nestedRerun?: Record<string, NestedRerun>;
}

/** How a `swarm:` task's child run re-runs the earlier child run (see {@link SwarmWorkflowInput.nestedRerun}). */
export interface NestedRerun {
  /** The earlier child run (`<earlier run>/swarm/<task>`) and the task of it that runs again. */
  rerunOf: RerunOrigin;
  /** What the child run reuses of it. */
  reuse: ReusedResults;
  /** Its own `swarm:` tasks' child runs, when the task it re-runs from is deeper still. */
  nested?: Record<string, NestedRerun>;
}

/** Where a re-run comes from. */
export interface RerunOrigin {
  /** The workflow id of the run it re-runs. */
  workflowId: string;
  /**
   * The task it re-runs from (it and everything downstream run again); none for a re-run of
   * changed inputs alone (the tasks reading them, and what depends on them, run again).
   */
  from?: string;
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
 * each instance. Its `output:` path gets the stored list of the manifest. Its context pool
 * entries are the ones the run's pool held for it ({@link ReusedLoop.loop.pooled}: its newest
 * `POOL_PER_LOOP` outputs, at the times they entered the pool), never one per instance; it adds
 * no compact payloads for the supervisor (a wide loop's outputs are read through its stored
 * list), and a loop writing `†channels` is never reused this way.
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
    /**
     * The loop's outputs the run's context pool held (its newest `POOL_PER_LOOP`, in pool
     * order): they enter the re-run's pool as they are, so a task that runs again after the
     * loop gets the context the run gave it. Absent when the run recorded none and its
     * history names none: the loop then pools nothing.
     */
    pooled?: PooledLoopOutput[];
    /** Outputs the loop added to the run's context pool in all (what the pool's `added` counts). */
    pooledCount?: number;
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
  /**
   * A nested run only (see {@link SwarmWorkflowInput.parent}): the output preview of each task
   * without a loop that finished, by task, which its parent's `swarm:` task hands on.
   */
  previews?: Record<string, string>;
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
