const NEWLINE = 0x0a;

function isContinuation(byte: number | undefined): boolean {
  return byte !== undefined && (byte & 0xc0) === 0x80;
}

/**
 * Size of a string in UTF-8 bytes, as `TextEncoder` would encode it (a lone surrogate is the
 * three bytes of U+FFFD).
 *
 * @example
 * ```ts
 * utf8Length('é'); // 2
 * ```
 */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && index + 1 < text.length) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        index++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * Largest cut point `<= index` that does not split a UTF-8 character: `bytes.subarray(0, cut)`
 * ends on a whole character. It moves back over at most three continuation bytes (a character
 * has no more), so bytes that are not UTF-8 are cut where asked, give or take three.
 *
 * @example
 * ```ts
 * utf8CutBefore(Buffer.from('aé'), 2); // 1 — 'é' is two bytes, so the cut moves before it
 * ```
 */
export function utf8CutBefore(bytes: Uint8Array, index: number): number {
  let cut = Math.max(0, Math.min(index, bytes.length));
  for (let steps = 0; steps < 3 && cut > 0 && cut < bytes.length && isContinuation(bytes[cut]); steps++)
    cut--;
  return cut;
}

/**
 * Smallest cut point `>= index` that does not split a UTF-8 character: `bytes.subarray(cut)`
 * starts on a whole character. It moves forward over at most three continuation bytes.
 *
 * @example
 * ```ts
 * utf8CutAfter(Buffer.from('éa'), 1); // 2
 * ```
 */
export function utf8CutAfter(bytes: Uint8Array, index: number): number {
  let cut = Math.max(0, Math.min(index, bytes.length));
  for (let steps = 0; steps < 3 && cut < bytes.length && isContinuation(bytes[cut]); steps++) cut++;
  return cut;
}

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
