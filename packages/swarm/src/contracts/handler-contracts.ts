// The requests and results of a swarm's updates and signals (inputs, approvals).
// Plain JSON types; workflow-safe: no imports with side effects, no Node APIs.

import type { PendingToolCall, TaskStatus } from './progress-contracts.js';

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
