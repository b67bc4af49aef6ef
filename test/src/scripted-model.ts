import { scriptedModel as shippedScriptedModel } from '@wharf/orchestrator/node';
import { MockLanguageModelV4 } from 'ai/test';

type CallOptions = Parameters<MockLanguageModelV4['doGenerate']>[0];

/** What a scripted model answers at one step: text, tool calls, or both. */
export interface ScriptedStep {
  text?: string;
  toolCalls?: { toolName: string; input: unknown }[];
}

/**
 * Wharf's `scripted` model (`scriptedModel` from `@wharf/orchestrator/node`: the step is chosen
 * by how many answers of its own the prompt already holds, tool call ids are
 * `call-<step>-<index>`) inside an AI SDK mock that records every call, for tests that look
 * at what the model was sent. A step may be a function of the prompt; past the last step it
 * answers `done`. Usage: 100 + step input tokens, 10 output tokens per call. Wharf's agent
 * steps stream their model calls: what the model was sent is in `doStreamCalls`.
 */
export function scriptedModel(
  steps: readonly (ScriptedStep | ((prompt: CallOptions['prompt']) => ScriptedStep))[],
): MockLanguageModelV4 {
  const withUsage = (step: number, reply: ScriptedStep) => ({
    ...reply,
    usage: { inputTokens: 100 + step, outputTokens: 10 },
  });
  const model = shippedScriptedModel(
    steps.map(
      (entry) => (prompt: CallOptions['prompt'], step: number) =>
        withUsage(step, typeof entry === 'function' ? entry(prompt) : entry),
    ),
    { name: 'test', afterLast: (_prompt, step) => withUsage(step, { text: 'done' }) },
  );
  return new MockLanguageModelV4({
    doGenerate: (options: CallOptions) => model.doGenerate(options),
    doStream: (options: CallOptions) => model.doStream(options),
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
