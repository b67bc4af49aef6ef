// The WHATWG text codecs are globals in Node, browsers and Temporal's workflow sandbox; the ES
// library this package compiles against names no runtime, so it declares the little it uses.
declare const TextEncoder: new () => { encode(text: string): Uint8Array };
declare const TextDecoder: new (
  label: 'utf-8',
  options: { fatal?: boolean; ignoreBOM?: boolean },
) => { decode(bytes: Uint8Array): string };

const encoder = new TextEncoder();
const strictDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const lenientDecoder = new TextDecoder('utf-8', { ignoreBOM: true });

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
 * utf8CutBefore(encodeUtf8('aé'), 2); // 1 — 'é' is two bytes, so the cut moves before it
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
 * utf8CutAfter(encodeUtf8('éa'), 1); // 2
 * ```
 */
export function utf8CutAfter(bytes: Uint8Array, index: number): number {
  let cut = Math.max(0, Math.min(index, bytes.length));
  for (let steps = 0; steps < 3 && cut < bytes.length && isContinuation(bytes[cut]); steps++) cut++;
  return cut;
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
  return decodeUtf8(bytes.subarray(0, utf8CutBefore(bytes, maxBytes)));
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
