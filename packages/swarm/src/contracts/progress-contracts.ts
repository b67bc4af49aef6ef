// What a swarm reports of its tasks while it runs (queries, heartbeats, instances).
// Plain JSON types; workflow-safe: no imports with side effects, no Node APIs.

import type { AgentUsage } from './agent-contracts.js';
import type { MapItems } from './data-plane-contracts.js';
import type { PooledLoopOutput } from './relevance-pool-contracts.js';

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
  /**
   * A loop: its newest outputs as they entered the context pool (at most `POOL_PER_LOOP`, in
   * pool order), what a re-run that reuses the loop whole puts in its own pool.
   */
  pooled?: PooledLoopOutput[];
  /** A loop: outputs it added to the context pool in all. */
  pooledCount?: number;
  /** The task's `approval:` gate, once the task reached it (or was answered early). */
  approval?: ApprovalState;
  /**
   * What its running subagents are doing, from their heartbeats: filled in by
   * `WharfClient.progress`, never by the workflow.
   */
  live?: LiveInstance[];
  /**
   * A running `swarm:` task's child swarm run: its workflow id (`<swarm>/swarm/<task>`) and
   * its own progress, its children's within it. Filled in by `WharfClient.progress`, never by
   * the workflow. Its gates and held tool calls are the parent's too, named
   * `<task>.<inner task>` (`pendingApprovals`).
   */
  child?: ChildSwarmProgress;
}

/** The progress of a `swarm:` task's child swarm run, as {@link TaskProgress.child} holds it. */
export interface ChildSwarmProgress extends SwarmProgress {
  /** The child's workflow id: `<parent>/swarm/<task>`. */
  workflowId: string;
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
  /** The running model step's text stream (`str_…`: read it with `tailStream`); there once the model writes text. */
  stream?: string;
  /** The running model step's tool-arguments stream (`str_…`), once the model writes a tool call. */
  toolInputStream?: string;
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
  /** The running model step's text stream: see {@link SubagentHeartbeat.stream}. */
  stream?: string;
  /** The running model step's tool-arguments stream. */
  toolInputStream?: string;
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
