const encoder = new TextEncoder();
const strictDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const lenientDecoder = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * Size of a string in UTF-8 bytes.
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
 * Encodes text as UTF-8 bytes.
 *
 * @example
 * ```ts
 * encodeUtf8('ok').length; // 2
 * ```
 */
export function encodeUtf8(text: string): Uint8Array {
  return encoder.encode(text);
}

/**
 * Longest prefix of `text` whose UTF-8 size is at most `maxBytes`, never splitting a
 * character.
 *
 * @example
 * ```ts
 * clampUtf8('héllo', 2); // 'h'
 * ```
 */
export function clampUtf8(text: string, maxBytes: number): string {
  if (maxBytes <= 0) return '';
  if (text.length <= maxBytes / 3 || utf8Length(text) <= maxBytes) return text;
  const bytes = encoder.encode(text);
  return decodeUtf8(bytes.subarray(0, startOfCharacter(bytes, maxBytes)));
}

/**
 * Decodes bytes that may not be valid UTF-8 without ever growing them: each invalid
 * sequence becomes `?`, so the text's UTF-8 size never exceeds the byte count.
 *
 * @example
 * ```ts
 * decodeUtf8(new Uint8Array([0x6f, 0x6b, 0xff])); // 'ok?'
 * ```
 */
export function decodeUtf8(bytes: Uint8Array): string {
  try {
    return strictDecoder.decode(bytes);
  } catch {
    return lenientDecoder.decode(bytes).replaceAll('\uFFFD', '?');
  }
}

/**
 * The largest index ≤ `index` that starts a character (is not a continuation byte), so
 * cutting at it keeps whole characters on both sides.
 *
 * @example
 * ```ts
 * startOfCharacter(encodeUtf8('é'), 1); // 0
 * ```
 */
export function startOfCharacter(bytes: Uint8Array, index: number): number {
  let position = Math.min(index, bytes.length);
  let steps = 0;
  while (position > 0 && position < bytes.length && ((bytes[position] ?? 0) & 0xc0) === 0x80 && steps < 3) {
    position--;
    steps++;
  }
  return position;
}

/**
 * Length of the longest prefix of `bytes` that does not end inside a multi-byte character
 * (for a head cut read without the bytes that follow it).
 *
 * @example
 * ```ts
 * completePrefixLength(encodeUtf8('aé').subarray(0, 2)); // 1
 * ```
 */
export function completePrefixLength(bytes: Uint8Array): number {
  const length = bytes.length;
  for (let back = 1; back <= Math.min(4, length); back++) {
    const byte = bytes[length - back] ?? 0;
    if ((byte & 0xc0) === 0x80) continue;
    const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return needed > back ? length - back : length;
  }
  return length;
}

/**
 * Number of leading continuation bytes (at most three) of a tail cut, i.e. the bytes of a
 * character that started before the cut.
 *
 * @example
 * ```ts
 * leadingContinuationBytes(encodeUtf8('é').subarray(1)); // 1
 * ```
 */
export function leadingContinuationBytes(bytes: Uint8Array): number {
  let count = 0;
  while (count < 3 && count < bytes.length && ((bytes[count] ?? 0) & 0xc0) === 0x80) count++;
  return count;
}
