import { generateText, type LanguageModel } from 'ai';
import type { Summarizer } from './summarize.js';

/** Options of {@link createAiSummarizer}. */
export interface AiSummarizerOptions {
  /** Any AI SDK language model (OpenAI, Anthropic, an OpenAI-compatible server, a mock). */
  model: LanguageModel;
  /** System instructions; the default asks for outcome, errors, warnings, counts and timings. */
  instructions?: string;
  /** Token cap of the answer (default 512). */
  maxOutputTokens?: number;
  abortSignal?: AbortSignal;
}

const DEFAULT_INSTRUCTIONS = [
  'You summarize the output of a workflow task for the tasks that run after it.',
  'Keep the outcome, every error and warning with the files or items it names, counts and timings.',
  'Answer in plain text without preamble.',
].join(' ');

/**
 * A {@link Summarizer} backed by any Vercel AI SDK language model.
 *
 * @example
 * ```ts
 * import { openai } from '@ai-sdk/openai';
 * import { summarizeOutput } from '@wharf/stdio-limits';
 * import { createAiSummarizer } from '@wharf/stdio-limits/ai';
 *
 * const summarizer = createAiSummarizer({ model: openai('gpt-4o-mini') });
 * const result = await summarizeOutput(log, { maxBytes: 2000, summarizer, storedAt: spill.path });
 * ```
 */
export function createAiSummarizer(options: AiSummarizerOptions): Summarizer {
  return async (request) => {
    const heading = request.taskId === undefined ? 'Output' : `Output of task ${request.taskId}`;
    const result = await generateText({
      model: options.model,
      system: `${options.instructions ?? DEFAULT_INSTRUCTIONS} Stay under ${request.maxBytes} bytes.`,
      prompt: `${heading} (${request.originalBytes} bytes in full):\n\n${request.content}`,
      maxOutputTokens: options.maxOutputTokens ?? 512,
      ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
    });
    return result.text;
  };
}
