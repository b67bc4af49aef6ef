import { utf8CutAfter, utf8CutBefore } from '@wharf/common';
import { formatCut, type TruncationStrategy } from './cut-marker.js';
import { StdioLimitsError } from './stdio-limits-error.js';

/** Result of {@link truncateOutput} and `summarizeOutput`. */
export interface TruncationResult {
  /** The text to keep: unchanged, or cut with exact markers, or a summary block. */
  content: string;
  truncated: boolean;
  /** Strategy actually applied (`both` when a summary fell back). */
  strategy: TruncationStrategy;
  originalBytes: number;
  /** Bytes of the original not shown in `content` (0 for a summary, which shows none verbatim). */
  omittedBytes: number;
}

/**
 * First line of a summary that fell back to `both`.
 *
 * @example
 * ```ts
 * fallbackNote('No summarizer configured');
 * // '--- [No summarizer configured; showing first/last bytes instead of a summary] ---'
 * ```
 */
export function fallbackNote(reason: string): string {
  return `--- [${reason}; showing first/last bytes instead of a summary] ---`;
}

/**
 * Cuts `content` to `maxBytes` of UTF-8 with the given strategy and Wharf's exact markers.
 * Text at or under the limit comes back unchanged with `truncated: false`. Cuts never split a
 * character, so a part may be up to 3 bytes shorter than asked; the markers give the real
 * counts. `summary` needs a summarizer (see `summarizeOutput`); here it falls back to `both`
 * and says so in its first line.
 *
 * @example
 * ```ts
 * truncateOutput('x'.repeat(50_000), 1000, 'head').content;
 * // '--- Output (showing first 1000 bytes of 50000) ---\nxxx…\n--- [49000 bytes truncated] ---'
 * ```
 */
export function truncateOutput(
  content: string,
  maxBytes: number,
  strategy: TruncationStrategy = 'tail',
): TruncationResult {
  if (!Number.isInteger(maxBytes) || maxBytes < 0) {
    throw new StdioLimitsError(
      'INVALID_ARGUMENT',
      `maxBytes must be a non-negative integer, got ${maxBytes}`,
    );
  }
  const bytes = Buffer.from(content, 'utf8');
  const total = bytes.length;
  if (total <= maxBytes)
    return { content, truncated: false, strategy, originalBytes: total, omittedBytes: 0 };
  if (strategy === 'head') {
    const end = utf8CutBefore(bytes, maxBytes);
    return cut(bytes, { strategy, headBytes: end, tailBytes: 0 });
  }
  if (strategy === 'tail') {
    const start = utf8CutAfter(bytes, total - maxBytes);
    return cut(bytes, { strategy, headBytes: 0, tailBytes: total - start });
  }
  const half = equalHalves(bytes, Math.floor(maxBytes / 2));
  const result = cut(bytes, { strategy: 'both', headBytes: half, tailBytes: half });
  if (strategy === 'summary') {
    return { ...result, content: `${fallbackNote('No summarizer configured')}\n${result.content}` };
  }
  return result;
}

/**
 * The longest prefix of `content` that fits in `maxBytes` of UTF-8 without splitting a character.
 *
 * @example
 * ```ts
 * truncateToBytes('héllo', 2); // 'h'
 * ```
 */
export function truncateToBytes(content: string, maxBytes: number): string {
  const bytes = Buffer.from(content, 'utf8');
  if (bytes.length <= maxBytes) return content;
  return bytes.subarray(0, utf8CutBefore(bytes, Math.max(0, maxBytes))).toString('utf8');
}

/** Largest n <= half such that both the first n and the last n bytes are whole characters. */
function equalHalves(bytes: Buffer, half: number): number {
  let size = half;
  for (;;) {
    const head = utf8CutBefore(bytes, size);
    const tail = bytes.length - utf8CutAfter(bytes, bytes.length - size);
    if (head === size && tail === size) return size;
    size = Math.min(head, tail);
  }
}

function cut(
  bytes: Buffer,
  parts: { strategy: 'head' | 'tail' | 'both'; headBytes: number; tailBytes: number },
): TruncationResult {
  const total = bytes.length;
  const head = bytes.subarray(0, parts.headBytes).toString('utf8');
  const tail = bytes.subarray(total - parts.tailBytes).toString('utf8');
  return {
    content: formatCut({ ...parts, head, tail, totalBytes: total }),
    truncated: true,
    strategy: parts.strategy,
    originalBytes: total,
    omittedBytes: total - parts.headBytes - parts.tailBytes,
  };
}
