/** Where items of a body are: `starts[i]`..`ends[i]` (end exclusive), byte offsets. */
export interface ItemSpans {
  readonly starts: number[];
  readonly ends: number[];
}

/**
 * What {@link BodyScanner.end} found a body to be: non-blank lines, the elements of one JSON
 * array, or refused with a reason naming what it is (binary data, text that is not UTF-8, one
 * JSON object, more items than allowed).
 */
export type BodyShape =
  | { kind: 'lines'; spans: ItemSpans }
  | { kind: 'json-array'; spans: ItemSpans }
  | { kind: 'refused'; reason: string };

const NEWLINE = 0x0a;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0d || byte === 0x0b || byte === 0x0c;
}

/**
 * Reads a body chunk by chunk, once, and finds its items two ways at once: its non-blank lines
 * (an item is a line with a character other than ASCII white space; it is read back trimmed),
 * and, when the body starts with `[` or `{`, the top-level elements of a JSON value. At the end
 * a body that is exactly one JSON array is its elements (each checked with `JSON.parse`); one
 * JSON object is refused (it is no list); anything else is its lines. A NUL byte (binary data)
 * or invalid UTF-8 is refused, and so is a body with more than `maxItems` items, as soon as that
 * is certain.
 *
 * @example
 * ```ts
 * const scanner = new BodyScanner(1_000_000);
 * for await (const chunk of body.stream) if (!scanner.push(chunk)) break;
 * const shape = scanner.end(); // { kind: 'lines', spans: { starts: [0, 4], ends: [3, 7] } }
 * ```
 */
export class BodyScanner {
  readonly #maxItems: number;
  readonly #decoder = new TextDecoder('utf-8', { fatal: true });
  #offset = 0;
  #refused: string | undefined;
  // Lines.
  readonly #lines: ItemSpans = { starts: [], ends: [] };
  #lineStart = 0;
  #lineHasContent = false;
  // JSON: undefined until the first non-space byte says whether to try.
  #json: JsonScanner | undefined | false;

  constructor(maxItems: number) {
    this.#maxItems = maxItems;
  }

  /** Bytes read so far. */
  get bytes(): number {
    return this.#offset;
  }

  /** Reads the next chunk; false once the outcome is known (refused) and reading can stop. */
  push(chunk: Uint8Array): boolean {
    if (this.#refused !== undefined) return false;
    const nul = chunk.indexOf(0);
    if (nul !== -1) {
      this.#refused = `binary data (a NUL byte at offset ${this.#offset + nul}), not lines of text or a JSON array`;
      return false;
    }
    try {
      this.#decoder.decode(chunk, { stream: true });
    } catch {
      this.#refused = `not UTF-8 text (an invalid byte sequence in bytes ${this.#offset}..${this.#offset + chunk.length})`;
      return false;
    }
    if (this.#json === undefined) {
      const first = chunk.findIndex((byte) => !isSpace(byte) && byte !== NEWLINE);
      if (first !== -1) {
        const byte = chunk[first];
        this.#json = byte === 0x5b || byte === 0x7b ? new JsonScanner() : false;
      }
    }
    if (this.#json) this.#json.push(chunk, this.#offset);
    this.#scanLines(chunk);
    this.#offset += chunk.length;
    const json = this.#json ? this.#json.count : 0;
    const jsonPossible = this.#json !== false && this.#json?.failed !== true;
    if (this.#lines.starts.length > this.#maxItems && (!jsonPossible || json > this.#maxItems)) {
      this.#refused = `more than ${this.#maxItems} items (max_items)`;
      return false;
    }
    return true;
  }

  /** What the body is, once every chunk was pushed (or pushing stopped). */
  end(): BodyShape {
    if (this.#refused !== undefined) return { kind: 'refused', reason: this.#refused };
    try {
      this.#decoder.decode();
    } catch {
      return { kind: 'refused', reason: 'not UTF-8 text (it ends inside a character)' };
    }
    if (this.#lineHasContent) {
      this.#lines.starts.push(this.#lineStart);
      this.#lines.ends.push(this.#offset);
    }
    const json = this.#json ? this.#json.finish() : undefined;
    if (json?.kind === 'array') {
      if (json.spans.starts.length > this.#maxItems)
        return { kind: 'refused', reason: `a JSON array of more than ${this.#maxItems} items (max_items)` };
      return { kind: 'json-array', spans: json.spans };
    }
    if (json?.kind === 'object')
      return {
        kind: 'refused',
        reason: 'one JSON object, not a list (print one item per line, or a JSON array)',
      };
    if (this.#lines.starts.length > this.#maxItems)
      return { kind: 'refused', reason: `more than ${this.#maxItems} items (max_items)` };
    return { kind: 'lines', spans: this.#lines };
  }

  #scanLines(chunk: Uint8Array): void {
    const base = this.#offset;
    let index = 0;
    while (index < chunk.length) {
      if (!this.#lineHasContent) {
        while (index < chunk.length && isSpace(chunk[index] as number)) index++;
        if (index < chunk.length && chunk[index] !== NEWLINE) this.#lineHasContent = true;
      }
      const newline = chunk.indexOf(NEWLINE, index);
      if (newline === -1) return;
      if (this.#lineHasContent) {
        this.#lines.starts.push(this.#lineStart);
        this.#lines.ends.push(base + newline);
      }
      this.#lineStart = base + newline + 1;
      this.#lineHasContent = false;
      index = newline + 1;
    }
  }
}

/**
 * Finds the top-level elements of one JSON value byte by byte (strings and escapes respected),
 * checking each element with `JSON.parse`. It gives up (`failed`) at the first byte that cannot
 * belong to one JSON array or object followed only by white space.
 */
class JsonScanner {
  failed = false;
  readonly spans: ItemSpans = { starts: [], ends: [] };
  #kind: 'array' | 'object' | undefined;
  #depth = 0;
  #done = false;
  #inString = false;
  #escaped = false;
  /** Start of the array element being read, -1 between elements. */
  #elementStart = -1;
  #lastContent = -1;
  /** Chunks (with their offsets) since the element being read started: to check it whole. */
  #held: { offset: number; bytes: Uint8Array }[] = [];

  get count(): number {
    return this.spans.starts.length;
  }

  push(chunk: Uint8Array, offset: number): void {
    if (this.failed) return;
    if (this.#kind === 'array') this.#held.push({ offset, bytes: chunk });
    for (let index = 0; index < chunk.length && !this.failed; index++) {
      const byte = chunk[index] as number;
      const position = offset + index;
      if (this.#inString) {
        if (this.#escaped) this.#escaped = false;
        else if (byte === BACKSLASH) this.#escaped = true;
        else if (byte === QUOTE) this.#inString = false;
        this.#lastContent = position;
        continue;
      }
      if (isSpace(byte) || byte === NEWLINE) continue;
      if (this.#done) {
        this.failed = true; // something after the value
        break;
      }
      if (this.#depth === 0) {
        if (this.#kind !== undefined || (byte !== 0x5b && byte !== 0x7b)) {
          this.failed = true;
          break;
        }
        this.#kind = byte === 0x5b ? 'array' : 'object';
        this.#depth = 1;
        if (this.#kind === 'array') this.#held.push({ offset, bytes: chunk });
        continue;
      }
      if (byte === 0x5d || byte === 0x7d) {
        this.#depth -= 1;
        if (this.#depth === 0) {
          if (this.#kind === 'array') {
            if (byte !== 0x5d) this.failed = true;
            else if (this.#elementStart !== -1) this.#closeElement();
            else if (this.count > 0) this.failed = true; // `[1,]`
          }
          this.#done = true;
          this.#held = [];
          continue;
        }
      } else if (byte === 0x5b || byte === 0x7b) {
        this.#depth += 1;
      } else if (byte === 0x2c && this.#depth === 1 && this.#kind === 'array') {
        if (this.#elementStart === -1) this.failed = true;
        else this.#closeElement();
        continue;
      } else if (byte === QUOTE) {
        this.#inString = true;
      }
      if (this.#kind === 'array' && this.#elementStart === -1 && this.#depth >= 1) {
        this.#elementStart = position;
        this.#dropHeldBefore(position);
      }
      this.#lastContent = position;
    }
  }

  /** The value read: an array with its element spans, or an object; undefined when it is neither. */
  finish(): { kind: 'array'; spans: ItemSpans } | { kind: 'object' } | undefined {
    if (this.failed || !this.#done || this.#kind === undefined) return undefined;
    return this.#kind === 'array' ? { kind: 'array', spans: this.spans } : { kind: 'object' };
  }

  #closeElement(): void {
    const start = this.#elementStart;
    const end = this.#lastContent + 1;
    this.#elementStart = -1;
    try {
      JSON.parse(Buffer.from(this.#slice(start, end)).toString('utf8'));
    } catch {
      this.failed = true;
      return;
    }
    this.spans.starts.push(start);
    this.spans.ends.push(end);
  }

  #slice(start: number, end: number): Uint8Array {
    const parts: Uint8Array[] = [];
    for (const { offset, bytes } of this.#held) {
      const from = Math.max(start, offset) - offset;
      const to = Math.min(end, offset + bytes.length) - offset;
      if (to > from) parts.push(bytes.subarray(from, to));
    }
    return parts.length === 1 ? (parts[0] as Uint8Array) : Buffer.concat(parts);
  }

  #dropHeldBefore(position: number): void {
    while (this.#held.length > 1) {
      const first = this.#held[0] as { offset: number; bytes: Uint8Array };
      if (first.offset + first.bytes.length > position) break;
      this.#held.shift();
    }
  }
}
