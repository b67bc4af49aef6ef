import { fallbackNote, type TruncationResult, truncateOutput, truncateToBytes } from './truncate.js';

/** What a summarizer is asked to summarize. */
export interface SummaryRequest {
  /** The output, or its first and last parts when it exceeds `maxInputBytes`. */
  content: string;
  /** Size of the whole original output. */
  originalBytes: number;
  /** The summary must fit in this many bytes (longer answers are cut). */
  maxBytes: number;
  taskId?: string;
}

/** Any async function that turns an output into a short summary (see `createAiSummarizer`). */
export type Summarizer = (request: SummaryRequest) => Promise<string>;

/** Options of {@link summarizeOutput}. */
export interface SummarizeOptions {
  maxBytes: number;
  summarizer?: Summarizer | undefined;
  /** Where the full original is kept (spill file, output store ref), named in the summary block. */
  storedAt?: string | undefined;
  taskId?: string;
  /** At most this much of the output is sent to the summarizer (default 64 KiB, head and tail). */
  maxInputBytes?: number;
}

/**
 * The `summary` strategy: asks the summarizer for a summary and renders Wharf's summary block,
 * naming where the original is stored. Without a summarizer, or when it fails, it falls back to
 * `both` and says why. Text at or under `maxBytes` is returned unchanged.
 *
 * @example
 * ```ts
 * const result = await summarizeOutput(log, {
 *   maxBytes: 1000,
 *   storedAt: '.workflow_state/task_outputs/task_123.log',
 *   summarizer: async ({ content }) => `${content.split('\n').length} lines, no errors`,
 * });
 * // --- Output Summary (50000 bytes) ---\n…\n--- [Original output stored in: .workflow_state/task_outputs/task_123.log] ---
 * ```
 */
export async function summarizeOutput(content: string, options: SummarizeOptions): Promise<TruncationResult> {
  const originalBytes = Buffer.byteLength(content, 'utf8');
  if (originalBytes <= options.maxBytes) {
    return { content, truncated: false, strategy: 'summary', originalBytes, omittedBytes: 0 };
  }
  if (!options.summarizer) return truncateOutput(content, options.maxBytes, 'summary');
  const input = truncateOutput(content, options.maxInputBytes ?? 65_536, 'both').content;
  let summary: string;
  try {
    summary = await options.summarizer({
      content: input,
      originalBytes,
      maxBytes: options.maxBytes,
      ...(options.taskId === undefined ? {} : { taskId: options.taskId }),
    });
  } catch (error) {
    const reason = `Summary failed: ${error instanceof Error ? error.message : String(error)}`;
    const fallback = truncateOutput(content, options.maxBytes, 'both');
    return { ...fallback, content: `${fallbackNote(reason)}\n${fallback.content}` };
  }
  return renderSummary({ summary, originalBytes, maxBytes: options.maxBytes, storedAt: options.storedAt });
}

/**
 * Wharf's summary block: the size of the original, the summary cut to `maxBytes`, and where the
 * original is stored.
 *
 * @example
 * ```ts
 * renderSummary({ summary: 'All tests passed.', originalBytes: 50000, maxBytes: 1000, storedAt: 'out/task.log' }).content;
 * // '--- Output Summary (50000 bytes) ---\nAll tests passed.\n--- [Original output stored in: out/task.log] ---'
 * ```
 */
export function renderSummary(input: {
  summary: string;
  originalBytes: number;
  maxBytes: number;
  storedAt?: string | undefined;
}): TruncationResult {
  const body = truncateToBytes(input.summary.trim(), input.maxBytes);
  const stored =
    input.storedAt === undefined
      ? '--- [Original output not stored] ---'
      : `--- [Original output stored in: ${input.storedAt}] ---`;
  return {
    content: `--- Output Summary (${input.originalBytes} bytes) ---\n${body}\n${stored}`,
    truncated: true,
    strategy: 'summary',
    originalBytes: input.originalBytes,
    omittedBytes: input.originalBytes,
  };
}
