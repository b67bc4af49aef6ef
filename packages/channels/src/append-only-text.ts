/** The JSON text of a list's first `count` items, without the brackets. */
interface KnownText {
  count: number;
  body: string;
}

/**
 * Writes the JSON text of append-only lists, reusing the text of the items it wrote (or read)
 * before: the items below a list's length never change, so only what was appended since is
 * serialised again. Checkpointing a long {@link Topic} every step then costs what the step
 * appended, not the whole list. The price is memory: a list written once keeps its text (about
 * the size of the checkpoint) for as long as the list lives.
 *
 * The lists must be append-only and their items immutable (channels hold sealed, frozen JSON);
 * a list that needs anything else (a reset) is replaced by a new list, which starts afresh.
 *
 * @example
 * ```ts
 * const texts = new AppendOnlyText();
 * const list = ['a', 'b'];
 * texts.write(list); // '["a","b"]'
 * list.push('c');
 * texts.write(list); // '["a","b","c"]': only "c" was serialised
 * ```
 */
export class AppendOnlyText {
  readonly #known = new WeakMap<readonly unknown[], KnownText>();

  /** `JSON.stringify(list)` (same text), serialising only the items appended since the last call. */
  write(list: readonly unknown[]): string {
    const known = this.#known.get(list);
    const length = list.length;
    let body: string;
    if (known === undefined || known.count > length) {
      body = JSON.stringify(list).slice(1, -1);
      this.#known.set(list, { count: length, body });
    } else {
      if (known.count < length) {
        const tail = JSON.stringify(list.slice(known.count)).slice(1, -1);
        known.body = known.count === 0 ? tail : `${known.body},${tail}`;
        known.count = length;
      }
      body = known.body;
    }
    return `[${body}]`;
  }

  /**
   * Remembers that `text` is the JSON text of `list` (just parsed from it, nothing appended
   * since), so the next {@link AppendOnlyText.write} starts from it. Text that does not start
   * with `[` and end with `]` is not remembered.
   */
  remember(list: readonly unknown[], text: string): void {
    if (text.charCodeAt(0) !== 91 /* [ */ || text.charCodeAt(text.length - 1) !== 93 /* ] */) return;
    // An empty list keeps no body: whatever lies between its brackets is only white space.
    this.rememberBody(list, list.length, list.length === 0 ? '' : text.slice(1, -1));
  }

  /** Remembers that `body` is the JSON text of the first `count` items of `list`, without the brackets. */
  rememberBody(list: readonly unknown[], count: number, body: string): void {
    this.#known.set(list, { count, body: count === 0 ? '' : body });
  }
}
