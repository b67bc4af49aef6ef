import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type {
  AddInputsRequest,
  AddInputsResult,
  ApproveTaskRequest,
  ApproveTaskResult,
  ApproveToolCallRequest,
  ApproveToolCallResult,
  SwarmProgress,
  ToolCallNotice,
} from '@wharf/swarm';

/** Query: the swarm's durable channel snapshot (refs and compact payloads only). */
export const stateQuery = defineQuery<unknown>('state');

/** Query: per-task status, bytes captured and out ids. */
export const progressQuery = defineQuery<SwarmProgress>('progress');

/** Update: cancel one task (its running activities are cancelled; dependents are skipped). */
export const cancelTaskUpdate = defineUpdate<
  { cancelled: boolean; status: string },
  [{ task: string; reason?: string }]
>('cancelTask');

/**
 * Signal: add a value for `†input.<key>` references; tasks waiting on it become ready. It
 * replaces a value already set without a word: prefer {@link addInputsUpdate}.
 */
export const addInputSignal = defineSignal<[{ key: string; value: unknown }]>('addInput');

/**
 * Update: add `†input.*` values; tasks waiting on them become ready. Refused, naming the keys,
 * when a key already holds a value, unless the request says `replace: true`.
 */
export const addInputsUpdate = defineUpdate<AddInputsResult, [AddInputsRequest]>('addInputs');

/**
 * Update: approve or reject a task's `approval:` gate, with an optional comment. Rejected
 * when the task has no gate, is unknown, already finished or was already answered.
 */
export const approveTaskUpdate = defineUpdate<ApproveTaskResult, [ApproveTaskRequest]>('approveTask');

/**
 * Update of an agent task's workflow (`<swarm>/agent/<label>`, `<swarm>/supervisor`, …): approve
 * or reject one tool call it holds for a person. Rejected when no such call waits there or it was
 * already decided. An approved call runs; a rejected one does not, and the model gets the
 * rejection (with the comment) as the tool's result.
 */
export const approveToolCallUpdate = defineUpdate<ApproveToolCallResult, [ApproveToolCallRequest]>(
  'approveToolCall',
);

/**
 * Signal from an agent task's workflow to its swarm: one of its tool calls waits for a person,
 * or no longer does. The swarm shows the calls that wait like its gates.
 */
export const toolCallNoticeSignal = defineSignal<[ToolCallNotice]>('toolCallNotice');

/**
 * Signal: who asks for the run's cancellation (`wharf cancel --by`), sent just before the
 * Temporal cancellation itself; the cancelled run's memo records it as `cancelledBy`.
 */
export const cancelledBySignal = defineSignal<[{ by: string }]>('cancelledBy');
