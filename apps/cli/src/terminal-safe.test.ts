import { describe, expect, it } from 'vitest';
import { terminalSafe } from './terminal-safe.js';

describe('terminalSafe', () => {
  it('turns escape sequences, cursor moves and C1 controls into a visible mark, keeping text, tabs and newlines', () => {
    expect(terminalSafe('ok\u001b[2J\u001b[Hspoofed\r\u0007\u009b31m')).toBe(
      'ok\ufffd[2J\ufffd[Hspoofed\ufffd\ufffd\ufffd31m',
    );
    expect(terminalSafe('a\tb\nc — ünïcode 漢字 🙂')).toBe('a\tb\nc — ünïcode 漢字 🙂');
  });
});
