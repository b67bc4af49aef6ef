// Line-aware adjustments of cuts in captured output. The UTF-8 cuts they start from
// (utf8CutBefore, utf8CutAfter) are @wharf/common's.
const NEWLINE = 0x0a;

/**
 * Moves a prefix cut back to just after a newline when one lies within `window` bytes before
 * it; otherwise keeps the cut. The result is always a UTF-8 boundary when `cut` is one.
 *
 * @example
 * ```ts
 * preferLineEndBefore(Buffer.from('ab\ncd'), 4, 8); // 3
 * ```
 */
export function preferLineEndBefore(bytes: Buffer, cut: number, window: number): number {
  if (cut <= 0 || cut >= bytes.length || bytes[cut - 1] === NEWLINE) return cut;
  const found = bytes.lastIndexOf(NEWLINE, cut - 1);
  return found >= 0 && cut - (found + 1) <= window ? found + 1 : cut;
}

/**
 * Moves a suffix start forward to just after a newline when one lies within `window` bytes
 * after it; otherwise keeps the start.
 *
 * @example
 * ```ts
 * preferLineStartAfter(Buffer.from('ab\ncd'), 1, 8); // 3
 * ```
 */
export function preferLineStartAfter(bytes: Buffer, start: number, window: number): number {
  if (start <= 0 || start >= bytes.length || bytes[start - 1] === NEWLINE) return start;
  const found = bytes.indexOf(NEWLINE, start);
  return found >= 0 && found + 1 - start <= window && found + 1 < bytes.length ? found + 1 : start;
}

/**
 * Number of newline bytes in `bytes`.
 *
 * @example
 * ```ts
 * countNewlines(Buffer.from('a\nb\n')); // 2
 * ```
 */
export function countNewlines(bytes: Buffer): number {
  // Four bytes per step (SWAR): a capture counts every byte it is given, and one indexOf per
  // line costs about twice as much on typical output.
  let count = 0;
  let at = 0;
  const aligned = Math.min(bytes.length, (4 - (bytes.byteOffset & 3)) & 3);
  for (; at < aligned; at++) if (bytes[at] === NEWLINE) count++;
  const words = (bytes.length - at) >>> 2;
  if (words > 0) {
    const view = new Uint32Array(bytes.buffer, bytes.byteOffset + at, words);
    for (let index = 0; index < words; index++) {
      const word = (view[index] ?? 0) ^ 0x0a0a0a0a;
      // The high bit of each byte is set exactly where the byte is zero (a newline).
      const zeros = ~(((word & 0x7f7f7f7f) + 0x7f7f7f7f) | word | 0x7f7f7f7f);
      count += Math.imul((zeros >>> 7) & 0x01010101, 0x01010101) >>> 24;
    }
    at += words * 4;
  }
  for (; at < bytes.length; at++) if (bytes[at] === NEWLINE) count++;
  return count;
}
