import type { OutputStore } from '@wharf/output-store';
import type { AgentToolCallRef, AgentUsage } from '@wharf/swarm';
import type { ModelMessage } from 'ai';
import { z } from 'zod';
import { emitScope, type SubagentIds } from '../activities/activity-identity.js';

const usageSchema = z.object({
  calls: z.number(),
  inputTokens: z.number(),
  outputTokens: z.number(),
  totalTokens: z.number(),
  costUsd: z.number().optional(),
});

/**
 * One stored piece of an agent's conversation: the messages it adds, plus what the step
 * that made it reported (a model step's tool calls and usage, a tool call's outcome). A
 * retried step finds its record by idempotency key and reports the same without redoing it.
 */
export const conversationRecordSchema = z.object({
  messages: z.array(z.custom<ModelMessage>((value) => typeof value === 'object' && value !== null)),
  model: z
    .object({
      toolCalls: z.array(
        z.object({
          toolCallId: z.string(),
          toolName: z.string(),
          /** The call waits for a person before it runs. */
          approval: z.object({ arguments: z.string() }).optional(),
        }),
      ),
      /** The model called tools (valid or not): the loop goes on. */
      calledTools: z.boolean(),
      finishReason: z.string(),
      usage: usageSchema,
      text: z.string(),
      /** A supervisor's step: bytes of evidence mounted into the call. */
      evidenceBytes: z.number().optional(),
    })
    .optional(),
  tool: z
    .object({
      toolName: z.string(),
      bytes: z.number(),
      truncated: z.boolean(),
      failed: z.boolean(),
      emitted: z.string().optional(),
    })
    .optional(),
});

/** One stored conversation record (what {@link conversationRecordSchema} checks). */
export interface ConversationRecord {
  messages: ModelMessage[];
  model?: {
    toolCalls: AgentToolCallRef[];
    calledTools: boolean;
    finishReason: string;
    usage: AgentUsage;
    text: string;
    evidenceBytes?: number;
  };
  tool?: { toolName: string; bytes: number; truncated: boolean; failed: boolean; emitted?: string };
}

/** The stored record under `key`, with its out id, or `undefined` when there is none yet. */
export async function findRecord(
  store: OutputStore,
  ids: SubagentIds,
  key: string,
): Promise<{ outId: string; record: ConversationRecord } | undefined> {
  const ref = await store.findByIdempotencyKey(emitScope(ids), key);
  if (ref === undefined) return undefined;
  return { outId: ref.outId, record: await loadRecord(store, ref.outId) };
}

/**
 * Stores a conversation record under an idempotency key (a retry gets the same out id).
 *
 * @example
 * ```ts
 * const outId = await storeRecord(store, ids, { key: `${ids.emitKeyPrefix}/step-0`, task, name, record });
 * ```
 */
export async function storeRecord(
  store: OutputStore,
  ids: SubagentIds,
  options: { key: string; task: string; name: string; record: ConversationRecord },
): Promise<string> {
  const ref = await store.emit({
    producer: { ownerId: ids.ownerId, runId: ids.runId, spawnId: ids.jobId, agent: 'wharf-agent' },
    content: { kind: 'text', text: JSON.stringify(options.record) },
    idempotencyKey: options.key,
    name: options.name,
    contentType: 'application/json',
    labels: { kind: 'agent-conversation', conversation: options.task },
  });
  return ref.outId;
}

/** Reads one record by out id. */
export async function loadRecord(store: OutputStore, outId: string): Promise<ConversationRecord> {
  const { body } = await store.get({ outId });
  return conversationRecordSchema.parse(JSON.parse(Buffer.from(body).toString('utf8'))) as ConversationRecord;
}

/** The conversation the refs make up, oldest message first. */
export async function loadConversation(
  store: OutputStore,
  outIds: readonly string[],
): Promise<ModelMessage[]> {
  const messages: ModelMessage[] = [];
  for (const outId of outIds) messages.push(...(await loadRecord(store, outId)).messages);
  return messages;
}

/**
 * The tool call `toolCallId` of a stored model step, with its name and input.
 *
 * @example
 * ```ts
 * const call = findToolCall((await loadRecord(store, record)).messages, toolCallId);
 * ```
 */
export function findToolCall(
  messages: readonly ModelMessage[],
  toolCallId: string,
): { toolName: string; input: unknown } | undefined {
  for (const message of messages) {
    if (message.role !== 'assistant' || typeof message.content === 'string') continue;
    for (const part of message.content) {
      if (part.type === 'tool-call' && part.toolCallId === toolCallId) return part;
    }
  }
  return undefined;
}
