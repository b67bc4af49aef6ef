/** How an output over its limit is cut. `summary` keeps head and tail for a later summary. */
export type TruncationStrategy = 'head' | 'tail' | 'both' | 'summary';

/** The pieces of a cut output, in bytes of UTF-8. */
export interface CutParts {
  strategy: 'head' | 'tail' | 'both';
  head: string;
  headBytes: number;
  tail: string;
  tailBytes: number;
  totalBytes: number;
}

/**
 * Renders a cut output with Wharf's cut markers. Every byte count in a marker is exact:
 * `omitted = total - head - tail`.
 *
 * @example
 * ```ts
 * formatCut({ strategy: 'head', head: 'abc', headBytes: 3, tail: '', tailBytes: 0, totalBytes: 10 });
 * // '--- Output (showing first 3 bytes of 10) ---\nabc\n--- [7 bytes truncated] ---'
 * ```
 */
export function formatCut(parts: CutParts): string {
  const omitted = parts.totalBytes - parts.headBytes - parts.tailBytes;
  const cut = `--- [${omitted} bytes truncated] ---`;
  switch (parts.strategy) {
    case 'head':
      return `--- Output (showing first ${parts.headBytes} bytes of ${parts.totalBytes}) ---\n${parts.head}\n${cut}`;
    case 'tail':
      return `${cut}\n${parts.tail}\n--- Output (showing last ${parts.tailBytes} bytes of ${parts.totalBytes}) ---`;
    case 'both': {
      const shown =
        parts.headBytes === parts.tailBytes
          ? `first/last ${parts.headBytes} bytes`
          : `first ${parts.headBytes}/last ${parts.tailBytes} bytes`;
      return `--- Output (showing ${shown} of ${parts.totalBytes}) ---\n${parts.head}\n${cut}\n${parts.tail}`;
    }
  }
}

/**
 * Splits a byte budget between head and tail for a strategy.
 *
 * @example
 * ```ts
 * splitBudget(101, 'both'); // { head: 50, tail: 51 }
 * ```
 */
export function splitBudget(budget: number, strategy: TruncationStrategy): { head: number; tail: number } {
  if (strategy === 'head') return { head: budget, tail: 0 };
  if (strategy === 'tail') return { head: 0, tail: budget };
  const head = Math.floor(budget / 2);
  return { head, tail: budget - head };
}
