/**
 * How deeply a JSON text nests arrays and objects, counted without parsing it and without
 * recursion: `1` for `{}` or `[1]`, `2` for `{"a":[]}`, `0` for a scalar. Stops counting
 * past `limit` (and returns `limit + 1`), so a hostile text costs one pass at most. Brackets
 * inside strings do not count. Meant to run before `JSON.parse` on untrusted input, whose
 * deeply nested values would overflow the stack of recursive consumers (validation,
 * serialisation); malformed text is left for `JSON.parse` to refuse.
 *
 * @example
 * ```ts
 * jsonNestingDepth('{"a":[[1]],"b":"[[["}', 64); // 3
 * if (jsonNestingDepth(text, 128) > 128) throw new InvalidOutputEventError('body', 'nests too deeply');
 * ```
 */
export function jsonNestingDepth(text: string, limit: number): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === backslash) index++;
      else if (char === quote) inString = false;
    } else if (char === quote) {
      inString = true;
    } else if (char === openBrace || char === openBracket) {
      depth++;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > limit) return deepest;
      }
    } else if (char === closeBrace || char === closeBracket) {
      depth--;
    }
  }
  return deepest;
}

const backslash = 0x5c;
const quote = 0x22;
const openBrace = 0x7b;
const closeBrace = 0x7d;
const openBracket = 0x5b;
const closeBracket = 0x5d;
