// The relevance pool: what a swarm's tasks know, and the plans that feed it to them.
// Plain JSON types; workflow-safe: no imports with side effects, no Node APIs.

import type { SwarmDefinition } from './swarm-schema.js';

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

/** One of a loop's outputs as the context pool held it: its instance, main output and time. */
export interface PooledLoopOutput {
  /** The instance's label, `task#i`. */
  taskId: string;
  outId: string;
  /** When it entered the pool (epoch ms; a re-run's reused output: the run's time, shifted). */
  pooledAt: number;
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
