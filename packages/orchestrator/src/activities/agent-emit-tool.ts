import type { OutputRef, OutputStore, Producer } from '@wharf/output-store';
import { createEmitTool, type EmitToolInput, type EmitToolResult } from '@wharf/output-store/ai';
import type { Tool } from 'ai';
import type { SubagentIds } from './activity-identity.js';

/** Options of {@link agentEmitTool}. */
export interface AgentEmitToolOptions {
  store: OutputStore;
  producer: Producer;
  ids: Pick<SubagentIds, 'emitKeyPrefix'>;
  task: string;
  /** The activity attempt: keys are per attempt, since a retried model loop may say something else. */
  attempt: number;
  /** Told of every stored output, in call order. */
  onEmit?: (ref: OutputRef, result: EmitToolResult) => void;
}

/**
 * An agent task's EMIT tool: output-store's EMIT tool (`content`, `name`, `contentType`,
 * `labels`; returns `{ outId, sizeBytes }`) with the keys of an agent activity
 * (`<emitKeyPrefix>/attempt-<n>/<index>`), the labels `task` and `attempt`, and `text/plain`
 * when the call names no media type.
 *
 * @example
 * ```ts
 * const outputs: OutputRef[] = [];
 * const tools = { emit: agentEmitTool({ store, producer, ids, task: input.task, attempt, onEmit: (ref) => outputs.push(ref) }) };
 * ```
 */
export function agentEmitTool(options: AgentEmitToolOptions): Tool<EmitToolInput, EmitToolResult> {
  const prefix = `${options.ids.emitKeyPrefix}/attempt-${options.attempt}`;
  return createEmitTool({
    store: options.store,
    producer: options.producer,
    keyPrefix: prefix,
    idempotencyKey: (_input, index) => `${prefix}/${index}`,
    labels: { task: options.task, attempt: String(options.attempt) },
    contentType: 'text/plain',
    ...(options.onEmit === undefined ? {} : { onEmit: options.onEmit }),
  });
}
