import { ChannelError, SnapshotError } from './channel-error.js';
import { adoptJsonList } from './json-value.js';

/**
 * A {@link Topic} list restored from checkpoint text without parsing it yet: the JSON text
 * of its first `recorded` items (as read, kept verbatim), the items appended since, and, once
 * something reads the list, the parsed items. Appending and writing the next checkpoint text
 * never parse it, so a run that only appends to a long topic never pays for its earlier items.
 *
 * The first read parses the text, checks it holds `recorded` items of plain JSON, and from
 * then on the list is a plain array ({@link DeferredList.items}). Text that fails those checks
 * raises a {@link SnapshotError} (`INVALID_SNAPSHOT`) naming the channel and the first bad
 * item, at that read and at every read after it: the list never holds half of it.
 *
 * @example
 * ```ts
 * const list = new DeferredList<string>('["a","b"]', 2, 'log');
 * list.append('c');
 * list.length; // 3, nothing parsed
 * list.items(); // ['a', 'b', 'c']
 * ```
 */
export class DeferredList<TItem> {
  /** The channel's name, for errors. */
  readonly channel: string;
  /** Text of the first `#count` items without the brackets (while not parsed). */
  #body: string;
  /** `#body` in its brackets, as read (until something is appended to `#body`): parsed without a copy. */
  #text: string | undefined;
  #count: number;
  /** Items appended since `#body` was last extended (while not parsed). */
  #tail: TItem[] = [];
  #items: TItem[] | undefined;
  #failure: SnapshotError | undefined;

  /**
   * @param text - the JSON text of a list (`[` … `]`), as the checkpoint holds it.
   * @param recorded - how many items the checkpoint's writer recorded for it.
   */
  constructor(text: string, recorded: number, channel: string) {
    this.channel = channel;
    this.#body = text.slice(1, -1);
    this.#text = text;
    this.#count = recorded;
  }

  /** How many items the list holds (the recorded ones are trusted until the first read). */
  get length(): number {
    return this.#items === undefined ? this.#count + this.#tail.length : this.#items.length;
  }

  /** Has the list been parsed? */
  get parsed(): boolean {
    return this.#items !== undefined;
  }

  /** Appends one sealed item, parsing nothing. */
  append(item: TItem): void {
    if (this.#items === undefined) this.#tail.push(item);
    else this.#items.push(item);
  }

  /**
   * The JSON text of the list while it is not parsed: the kept text plus what was appended,
   * serialising only the appended items. `undefined` once parsed (the items are then written
   * like any list's).
   */
  text(): string | undefined {
    if (this.#items !== undefined) return undefined;
    if (this.#tail.length > 0) {
      const tail = JSON.stringify(this.#tail).slice(1, -1);
      this.#body = this.#count === 0 ? tail : `${this.#body},${tail}`;
      this.#text = undefined;
      this.#count += this.#tail.length;
      this.#tail = [];
    }
    this.#text ??= `[${this.#body}]`;
    return this.#text;
  }

  /**
   * The parsed list (a plain array the caller may append to), parsing and checking the kept
   * text on the first call. `known` receives the text of the items that came from it.
   * @throws {@link SnapshotError} `INVALID_SNAPSHOT` naming the channel and the first bad item.
   */
  items(known?: (items: TItem[], count: number, body: string) => void): TItem[] {
    if (this.#items !== undefined) return this.#items;
    if (this.#failure !== undefined) throw this.#failure;
    const body = this.#body;
    const count = this.#count;
    let items: TItem[];
    try {
      items = parseItems(this.#text ?? `[${body}]`, count, this.channel) as TItem[];
    } catch (error) {
      this.#failure = SnapshotError.isInstance(error)
        ? error
        : new SnapshotError('INVALID_SNAPSHOT', String(error));
      throw this.#failure;
    }
    for (const item of this.#tail) items.push(item);
    this.#items = items;
    this.#tail = [];
    this.#body = '';
    this.#text = undefined;
    known?.(items, count, body);
    return items;
  }
}

/** Parses a list's checkpoint text, checks it holds `count` items of plain JSON, and seals them. */
function parseItems(text: string, count: number, channel: string): unknown[] {
  const where = `Snapshot value of channel "${channel}" (parsed on first read)`;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new SnapshotError('INVALID_SNAPSHOT', `${where} is not JSON at ${firstBadItem(text)}: ${reason}`);
  }
  if (!Array.isArray(value)) throw new SnapshotError('INVALID_SNAPSHOT', `${where} is not a list.`);
  if (value.length !== count) {
    throw new SnapshotError(
      'INVALID_SNAPSHOT',
      `${where} holds ${value.length} items where its checkpoint recorded ${count}.`,
    );
  }
  try {
    return adoptJsonList(value, `snapshot value "${channel}"`);
  } catch (error) {
    if (!ChannelError.isInstance(error)) throw error;
    throw new SnapshotError('INVALID_SNAPSHOT', `${where} is invalid: ${error.message}`);
  }
}

/**
 * Names the first item of a list's text that does not parse (`item 12, at character 345`).
 * Runs only on the way to an error, so it may take its time: it cuts the text at its top-level
 * commas and parses the pieces one by one.
 */
function firstBadItem(text: string): string {
  let depth = 0;
  let inString = false;
  let start = 1;
  let index = 0;
  for (let at = 1; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (inString) {
      if (code === 92 /* \ */) at++;
      else if (code === 34 /* " */) inString = false;
      continue;
    }
    if (code === 34) inString = true;
    else if (code === 91 /* [ */ || code === 123 /* { */) depth++;
    else if (code === 93 /* ] */ || code === 125 /* } */) depth--;
    if ((code === 44 /* , */ && depth === 0) || depth < 0) {
      if (!parses(text.slice(start, at))) return `item ${index}, at character ${start}`;
      if (depth < 0) return at === text.length - 1 ? 'the end of the list' : `character ${at + 1}`;
      start = at + 1;
      index++;
    }
  }
  return `item ${index}, at character ${start}`;
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
