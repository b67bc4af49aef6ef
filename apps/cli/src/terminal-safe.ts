/** C0 controls but tab and newline, DEL, and C1 controls: what can move a terminal's cursor or start an escape sequence. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is replaced
const controls = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * Text a model or a script wrote, made safe to print among Wharf's own lines: every control
 * character that could start an escape sequence, move the cursor or clear the screen (all of
 * C0 but tab and newline, DEL, C1) becomes `�`, so an answer cannot redraw or spoof the table
 * around it. Everything else, any language's letters included, stays.
 *
 * @example
 * ```ts
 * terminalSafe('ok\u001b[2Jgone'); // 'ok�[2Jgone'
 * ```
 */
export function terminalSafe(text: string): string {
  return text.replace(controls, '\ufffd');
}

/**
 * {@link terminalSafe} for text printed inside one line (a table's cell, a status line): its
 * line breaks become ` ⏎ ` and its tabs spaces as well, so a script's failure reason or a model's
 * tool arguments cannot start a line of their own that reads as Wharf's (`✓ deploy succeeded`).
 *
 * @example
 * ```ts
 * terminalSafeLine('exit 1\n✓ deploy  succeeded'); // 'exit 1 ⏎ ✓ deploy  succeeded'
 * ```
 */
export function terminalSafeLine(text: string): string {
  return terminalSafe(text).replace(/\n/g, ' ⏎ ').replace(/\t/g, ' ');
}
