import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { captureStream } from './capture-stream.js';
import type { StreamCapture } from './stream-accumulator.js';
import { renderSummary, type Summarizer } from './summarize.js';
import { fallbackNote, type TruncationResult } from './truncate.js';

/** Options of {@link summarizeCapture}. */
export interface SummarizeCaptureOptions {
  maxBytes: number;
  summarizer?: Summarizer | undefined;
  taskId?: string;
  /** At most this much of the output is sent to the summarizer (default 64 KiB, head and tail). */
  maxInputBytes?: number;
}

/**
 * The `summary` strategy for a captured stream. The summarizer sees the head and tail of the
 * *full* output, read back from the spill file in fixed memory (gzip too) when there is one, or
 * else the retained text; the block names the spill file as where the original is stored.
 * Without a summarizer, or when it fails, the retained text is kept and the first line says why.
 *
 * @example
 * ```ts
 * const result = await captureProcess('make', { limits: { truncation_strategy: 'summary', external_storage_dir: '.outputs' } });
 * const summary = await summarizeCapture(result.stdout, { maxBytes: 2000, summarizer });
 * ```
 */
export async function summarizeCapture(
  capture: StreamCapture,
  options: SummarizeCaptureOptions,
): Promise<TruncationResult> {
  const originalBytes = capture.totalBytes;
  if (!capture.truncated && originalBytes <= options.maxBytes) {
    return { content: capture.text, truncated: false, strategy: 'summary', originalBytes, omittedBytes: 0 };
  }
  const fallback = (reason: string): TruncationResult => ({
    content: `${fallbackNote(reason)}\n${capture.text}`,
    truncated: true,
    strategy: 'both',
    originalBytes,
    omittedBytes: capture.omittedBytes,
  });
  if (!options.summarizer) return fallback('No summarizer configured');
  const spill = capture.spill && capture.spill.error === undefined ? capture.spill : undefined;
  try {
    let content = capture.text;
    if (spill && !spill.capped) {
      const file = createReadStream(spill.path);
      const source: Readable = spill.compressed ? file.pipe(createGunzip()) : file;
      content = (await captureStream(source, { maxBytes: options.maxInputBytes ?? 65_536, strategy: 'both' }))
        .text;
    }
    const summary = await options.summarizer({
      content,
      originalBytes,
      maxBytes: options.maxBytes,
      ...(options.taskId === undefined ? {} : { taskId: options.taskId }),
    });
    return renderSummary({ summary, originalBytes, maxBytes: options.maxBytes, storedAt: spill?.path });
  } catch (error) {
    return fallback(`Summary failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}
