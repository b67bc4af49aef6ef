import {
  type ResolvedLimits,
  type StreamCapture,
  type Summarizer,
  summarizeCapture,
} from '@wharf/stdio-limits';
import { createAiSummarizer } from '@wharf/stdio-limits/ai';
import type { LanguageModel } from 'ai';

/** A summary is asked to stay under this many bytes (or `max_stdout_bytes`, if smaller). */
export const SUMMARY_MAX_BYTES = 4_096;

/**
 * The `truncation_strategy: summary` of one captured stream: `undefined` unless the strategy is
 * `summary` and the stream went over its cap. The summarizer reads the head and tail of the full
 * output (the spill file); without a summarizer, or when it fails, the text says so on its first
 * line and keeps the first and last bytes instead. The full output is stored either way.
 *
 * @example
 * ```ts
 * const summary = await summarizeStream(capture.stdout, limits, { summarizer, taskId: 'build' });
 * summary; // '--- Output Summary (1048577 bytes) ---\n…' or '--- [No summarizer configured; …] ---\n…'
 * ```
 */
export async function summarizeStream(
  stream: StreamCapture,
  limits: Pick<ResolvedLimits, 'truncation_strategy' | 'max_stdout_bytes'>,
  options: { summarizer?: Summarizer | undefined; taskId: string },
): Promise<string | undefined> {
  if (limits.truncation_strategy !== 'summary' || !stream.truncated) return undefined;
  const result = await summarizeCapture(stream, {
    maxBytes: Math.min(SUMMARY_MAX_BYTES, limits.max_stdout_bytes),
    summarizer: options.summarizer,
    taskId: options.taskId,
  });
  return result.content;
}

/**
 * The summarizer hook of an agent's model: what the agent path passes its own model to, so
 * that `truncation_strategy: summary` summarizes with the model the task already uses.
 *
 * @example
 * ```ts
 * const summarizer = modelSummarizer(models.resolve(agent.model));
 * await summarizeStream(capture.stdout, limits, { summarizer, taskId });
 * ```
 */
export function modelSummarizer(model: LanguageModel): Summarizer {
  return createAiSummarizer({ model });
}
