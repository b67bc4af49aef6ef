import { MockLanguageModelV4 } from 'ai/test';

type CallOptions = Parameters<MockLanguageModelV4['doGenerate']>[0];
type Content = Awaited<ReturnType<MockLanguageModelV4['doGenerate']>>['content'][number];

/** What a scripted model answers at one step: text, tool calls, or both. */
export interface ScriptedStep {
  text?: string;
  toolCalls?: { toolName: string; input: unknown }[];
}

/**
 * An AI SDK mock model that plays `steps` in order, choosing the step by how many answers of
 * its own the prompt already holds (so a retried call gets the same answer); a step may be a
 * function of the prompt (to use what earlier tool calls returned). Tool call ids
 * are `call-<step>-<index>`. Usage: 100 + step input tokens, 10 output tokens per call.
 */
export function scriptedModel(
  steps: readonly (ScriptedStep | ((prompt: CallOptions['prompt']) => ScriptedStep))[],
): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    doGenerate: async (options: CallOptions) => {
      const step = options.prompt.filter((message) => message.role === 'assistant').length;
      const entry = steps[step] ?? { text: 'done' };
      const script = typeof entry === 'function' ? entry(options.prompt) : entry;
      const content: Content[] = [];
      if (script.text !== undefined) content.push({ type: 'text', text: script.text });
      for (const [index, call] of (script.toolCalls ?? []).entries()) {
        content.push({
          type: 'tool-call',
          toolCallId: `call-${step}-${index}`,
          toolName: call.toolName,
          input: JSON.stringify(call.input),
        });
      }
      const calls = (script.toolCalls ?? []).length > 0;
      return {
        content,
        finishReason: { unified: calls ? 'tool-calls' : 'stop', raw: calls ? 'tool_calls' : 'stop' },
        usage: {
          inputTokens: { total: 100 + step, noCache: 100 + step, cacheRead: 0, cacheWrite: 0 },
          outputTokens: { total: 10, text: 10, reasoning: 0 },
        },
        warnings: [],
      };
    },
  });
}

/** The text of every tool result the model was sent in one call, by tool call id. */
export function toolResultsSent(options: CallOptions): Map<string, { type: string; value: unknown }> {
  const results = new Map<string, { type: string; value: unknown }>();
  for (const message of options.prompt) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) {
      if (part.type === 'tool-result')
        results.set(part.toolCallId, part.output as { type: string; value: unknown });
    }
  }
  return results;
}
