import { describe, expect, it } from 'vitest';
import { AnswerLines } from './answer-lines.js';

function capture() {
  const written: string[] = [];
  return { lines: new AnswerLines((text) => written.push(text)), written, all: () => written.join('') };
}

describe('AnswerLines', () => {
  it('writes each piece at once, leading every line with its writer', () => {
    const { lines, written, all } = capture();
    lines.text('draft', 'The moon ');
    expect(written).toEqual(['draft │ The moon ']);
    lines.text('draft', 'pulls\nthe sea');
    lines.text('draft', '.\n\nEnd.');
    lines.end();
    expect(all()).toBe('draft │ The moon pulls\ndraft │ the sea.\ndraft │ \ndraft │ End.\n');
  });

  it('keeps two answers written at once apart, and a progress line out of an open answer line', () => {
    const { lines, all } = capture();
    lines.text('a#0', 'alpha ');
    lines.text('a#1', 'beta ');
    lines.text('a#0', 'gamma');
    lines.line('a: running 0/2');
    lines.text('a#0', ' delta\n');
    lines.line('a: done');
    expect(all()).toBe('a#0 │ alpha \na#1 │ beta \na#0 │ gamma\na: running 0/2\na#0 │  delta\na: done\n');
  });

  it("shows an answer's escape sequences instead of letting them act on the terminal", () => {
    const { lines, all } = capture();
    lines.text('draft', 'fine\u001b[2J\u001b[1A\rnot the table\n');
    expect(all()).toBe('draft │ fine\ufffd[2J\ufffd[1A\ufffdnot the table\n');
  });
});
