import { terminalSafe } from './terminal-safe.js';

/**
 * Live answers in a log that is not a terminal: each piece of text written as it comes, every
 * line of it led by who writes it (`review#2 │ `), so that answers written at once stay
 * readable apart; a whole line (a progress change) never lands in the middle of an answer's line,
 * and an answer's control characters are shown as `�` (`terminalSafe`), never acted on.
 *
 * @example
 * ```ts
 * const lines = new AnswerLines((text) => process.stdout.write(text));
 * lines.text('draft', 'The moon ');
 * lines.text('draft', 'pulls the sea.\n');
 * lines.line('draft: done'); // draft │ The moon pulls the sea.⏎draft: done⏎
 * ```
 */
export class AnswerLines {
  readonly #write: (text: string) => void;
  /** Whose line is open (not ended by a newline), if any. */
  #open: string | undefined;

  constructor(write: (text: string) => void) {
    this.#write = write;
  }

  /** Writes `text` of `name`'s answer now, each of its lines led by `name │ `. */
  text(name: string, text: string): void {
    if (text === '') return;
    let out = '';
    if (this.#open !== undefined && this.#open !== name) {
      out += '\n';
      this.#open = undefined;
    }
    // A model's text among Wharf's own lines: no escape sequence of its own gets through.
    const pieces = terminalSafe(text).split('\n');
    for (const [index, piece] of pieces.entries()) {
      const last = index === pieces.length - 1;
      if (piece !== '' || !last) {
        if (this.#open === undefined) out += `${name} │ `;
        out += piece;
        this.#open = name;
      }
      if (!last) {
        out += '\n';
        this.#open = undefined;
      }
    }
    this.#write(out);
  }

  /** Writes a whole line, first ending an answer's open line. */
  line(text: string): void {
    this.#write(`${this.#open === undefined ? '' : '\n'}${text}\n`);
    this.#open = undefined;
  }

  /** Ends an answer's open line, if one is open. */
  end(): void {
    if (this.#open !== undefined) this.#write('\n');
    this.#open = undefined;
  }
}
