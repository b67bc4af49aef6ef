import { describe, expect, it } from 'vitest';
import { terminalSafe, terminalSafeLine } from './terminal-safe.js';

describe('terminalSafe', () => {
  it('turns escape sequences, cursor moves and C1 controls into a visible mark, keeping text, tabs and newlines', () => {
    expect(terminalSafe('ok\u001b[2J\u001b[Hspoofed\r\u0007\u009b31m')).toBe(
      'ok\ufffd[2J\ufffd[Hspoofed\ufffd\ufffd\ufffd31m',
    );
    expect(terminalSafe('a\tb\nc — ünïcode 漢字 🙂')).toBe('a\tb\nc — ünïcode 漢字 🙂');
  });
});

describe('terminalSafeLine', () => {
  it('also keeps a text on its line: line breaks become ⏎, tabs spaces', () => {
    expect(terminalSafeLine('exit 1\n✔ deploy\tdone\r\n\u001b[1A')).toBe(
      'exit 1 ⏎ ✔ deploy done\ufffd ⏎ \ufffd[1A',
    );
  });
});
