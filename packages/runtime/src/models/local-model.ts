import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
} from '@ai-sdk/provider';

/** What a local model answers to one call: its content and token counts. */
export interface LocalAnswer {
  content: LanguageModelV4Content[];
  inputTokens: number;
  outputTokens: number;
}

/**
 * An AI SDK language model answered in this process by `answer` (no network): `doGenerate`
 * returns its content with finish reason `tool-calls` when it holds a tool call, else `stop`;
 * `doStream` sends the same content as stream parts. What Wharf's `echo` and `scripted:` models
 * are built on.
 *
 * @example
 * ```ts
 * const model = localModel({ provider: 'wharf', modelId: 'hi', answer: () => ({ content: [{ type: 'text', text: 'hi' }], inputTokens: 1, outputTokens: 1 }) });
 * ```
 */
export function localModel(options: {
  provider: string;
  modelId: string;
  answer: (call: LanguageModelV4CallOptions) => LocalAnswer | Promise<LocalAnswer>;
}): LanguageModelV4 {
  const generate = async (call: LanguageModelV4CallOptions): Promise<LanguageModelV4GenerateResult> => {
    call.abortSignal?.throwIfAborted();
    const answer = await options.answer(call);
    const calls = answer.content.some((part) => part.type === 'tool-call');
    return {
      content: answer.content,
      finishReason: { unified: calls ? 'tool-calls' : 'stop', raw: calls ? 'tool_calls' : 'stop' },
      usage: usageOf(answer),
      warnings: [],
      response: { modelId: options.modelId },
    };
  };
  return {
    specificationVersion: 'v4',
    provider: options.provider,
    modelId: options.modelId,
    supportedUrls: {},
    doGenerate: generate,
    async doStream(call) {
      const result = await generate(call);
      const parts: LanguageModelV4StreamPart[] = [{ type: 'stream-start', warnings: [] }];
      for (const [index, part] of result.content.entries()) {
        if (part.type === 'text') {
          const id = `text-${index}`;
          parts.push(
            { type: 'text-start', id },
            { type: 'text-delta', id, delta: part.text },
            { type: 'text-end', id },
          );
        } else {
          parts.push(part as LanguageModelV4StreamPart);
        }
      }
      parts.push({ type: 'finish', usage: result.usage, finishReason: result.finishReason });
      return {
        stream: new ReadableStream<LanguageModelV4StreamPart>({
          start(controller) {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        }),
      };
    },
  };
}

function usageOf(answer: LocalAnswer): LanguageModelV4Usage {
  return {
    inputTokens: { total: answer.inputTokens, noCache: answer.inputTokens, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: answer.outputTokens, text: answer.outputTokens, reasoning: 0 },
  };
}

/**
 * A rough token count for offline models: one token per 4 bytes of UTF-8, at least 1.
 *
 * @example
 * ```ts
 * estimateTokens('hello world!'); // 3
 * ```
 */
export function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(Buffer.byteLength(text, 'utf8') / 4));
}
