import type { LanguageModelV4, LanguageModelV4Content, LanguageModelV4Prompt } from '@ai-sdk/provider';
import { estimateTokens, localModel } from './local-model.js';
import { ModelError } from './model-error.js';

/** What a scripted model answers at one step of a conversation: text, tool calls, or both. */
export interface ScriptedReply {
  text?: string;
  toolCalls?: readonly { toolName: string; input: unknown }[];
  /** Token counts to report; default an estimate (4 bytes a token) of the prompt and the reply. */
  usage?: { inputTokens: number; outputTokens: number };
}

/** A reply, or a function of the prompt and the step that makes one (to use what tools returned). */
export type ScriptedStep = ScriptedReply | ((prompt: LanguageModelV4Prompt, step: number) => ScriptedReply);

/** Options of {@link scriptedModel}. */
export interface ScriptedModelOptions {
  /** Named in the model id and in errors (a file's path). Default `inline`. */
  name?: string;
  /** The step once `steps` run out. Default: none, and such a call fails with `INVALID_SCRIPTED_MODEL`. */
  afterLast?: ScriptedStep;
}

/**
 * A model that replays `steps`: the reply of a call is chosen by how many answers of its own
 * the conversation already holds (step 0 is a conversation's first call), so every
 * conversation replays from the start and a retried call gets the same reply. Tool call ids
 * are `call-<step>-<index>`. What the `scripted:<file>` model id builds (see
 * `loadScriptedModel`); in code, a step may also be a function of the prompt.
 *
 * @example
 * ```ts
 * const model = scriptedModel([
 *   { toolCalls: [{ toolName: 'shell', input: { command: 'ls' } }] },
 *   { text: 'Two files.' },
 * ]);
 * ```
 */
export function scriptedModel(
  steps: readonly ScriptedStep[],
  options: ScriptedModelOptions = {},
): LanguageModelV4 {
  const name = options.name ?? 'inline';
  return localModel({
    provider: 'wharf',
    modelId: `scripted:${name}`,
    answer: (call) => {
      const step = call.prompt.filter((message) => message.role === 'assistant').length;
      const entry = steps[step] ?? options.afterLast;
      if (entry === undefined) {
        throw new ModelError(
          'INVALID_SCRIPTED_MODEL',
          `scripted model ${name} has ${steps.length} repl${steps.length === 1 ? 'y' : 'ies'}; this conversation asks for reply ${step + 1} (add replies, or end the last one with text and no tool calls)`,
          { modelId: `scripted:${name}`, file: name },
        );
      }
      const reply = typeof entry === 'function' ? entry(call.prompt, step) : entry;
      const content: LanguageModelV4Content[] = [];
      if (reply.text !== undefined) content.push({ type: 'text', text: reply.text });
      for (const [index, toolCall] of (reply.toolCalls ?? []).entries()) {
        content.push({
          type: 'tool-call',
          toolCallId: `call-${step}-${index}`,
          toolName: toolCall.toolName,
          input: JSON.stringify(toolCall.input ?? {}),
        });
      }
      return {
        content,
        inputTokens: reply.usage?.inputTokens ?? estimateTokens(JSON.stringify(call.prompt)),
        outputTokens: reply.usage?.outputTokens ?? estimateTokens(JSON.stringify(content)),
      };
    },
  });
}
