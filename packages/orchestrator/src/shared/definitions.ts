import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { ApproveTaskRequest, ApproveTaskResult, SwarmProgress } from './types.js';

/** Query: the swarm's durable channel snapshot (refs and compact payloads only). */
export const stateQuery = defineQuery<unknown>('state');

/** Query: per-task status, bytes captured and out ids. */
export const progressQuery = defineQuery<SwarmProgress>('progress');

/** Update: cancel one task (its running activities are cancelled; dependents are skipped). */
export const cancelTaskUpdate = defineUpdate<
  { cancelled: boolean; status: string },
  [{ task: string; reason?: string }]
>('cancelTask');

/** Signal: add a value for `†input.<key>` references; tasks waiting on it become ready. */
export const addInputSignal = defineSignal<[{ key: string; value: unknown }]>('addInput');

/**
 * Update: approve or reject a task's `approval:` gate, with an optional comment. Rejected
 * when the task has no gate, is unknown, already finished or was already answered.
 */
export const approveTaskUpdate = defineUpdate<ApproveTaskResult, [ApproveTaskRequest]>('approveTask');
