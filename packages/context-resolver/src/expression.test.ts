import { describe, expect, it } from 'vitest';
import { ContextLog } from './context-log.js';
import { InvalidExpressionError } from './context-resolver-error.js';
import { evaluateExpression } from './evaluate.js';
import { type Expression, ExpressionParser, expressionReferences, parseExpression } from './expression.js';
import { parseOutputPath } from './output-plan.js';

function parseError(text: string): InvalidExpressionError {
  try {
    parseExpression(text);
  } catch (error) {
    if (error instanceof InvalidExpressionError) return error;
    throw error;
  }
  throw new Error(`expected ${text} to fail`);
}

describe('parseExpression', () => {
  it('parses references, fallbacks and gates with && binding tighter than ||', () => {
    const expression = parseExpression(' †a.x || †b.y && (†c || †d.0) ');
    expect(expression.type).toBe('or');
    expect(expressionReferences(expression)).toEqual(['†a.x', '†b.y', '†c', '†d.0']);
    if (expression.type !== 'or') return;
    expect(expression.operands[1]?.type).toBe('and');
  });

  it.each([
    ['', 0, "a reference '†kind.path' or '('"],
    ['†data.a ||', 10, "a reference '†kind.path' or '('"],
    ['†data.a |', 8, "'||', '&&' or end of expression"],
    ['†data.a && && †b', 11, "a reference '†kind.path' or '('"],
    ['(†data.a', 8, "')'"],
    ['†data.', 6, 'a key after "."'],
    ['†1x', 1, 'a kind name (letter or _)'],
    ['data.a', 0, "a reference '†kind.path' or '('"],
    ['†a.b c', 5, "'||', '&&' or end of expression"],
  ])('reports %j at position %i expecting %s', (text, position, expected) => {
    const error = parseError(text);
    expect(error.code).toBe('INVALID_EXPRESSION');
    expect(error.position).toBe(position);
    expect(error.expected).toBe(expected);
    expect(error.message).toContain(`position ${position}`);
  });
});

describe('ExpressionParser (grammars built on it)', () => {
  type Node =
    | Expression
    | { readonly type: 'flag'; readonly on: boolean }
    | { readonly type: 'not'; readonly operand: Node };

  class FlagError extends Error {
    constructor(
      readonly position: number,
      readonly expected: string,
    ) {
      super(`at ${position}: expected ${expected}`);
    }
  }

  /** `on` / `off` operands and a `!` prefix, with its own words and its own error. */
  class FlagParser extends ExpressionParser<Node> {
    protected override readonly expectedOperand = "a reference, 'on', 'off' or '('";
    protected override parseTerm(): Node {
      if (this.accept('!')) return { type: 'not', operand: this.parseTerm() };
      return this.parseOperand();
    }
    protected override parseOtherOperand(): Node | undefined {
      if (this.accept('on')) return { type: 'flag', on: true };
      if (this.accept('off')) return { type: 'flag', on: false };
      return undefined;
    }
    protected override fail(expected: string): never {
      throw new FlagError(this.position, expected);
    }
  }

  it('keeps the precedence and grouping and adds the subclass terms and operands', () => {
    expect(new FlagParser('†a.ready && !(off || †b) || on').parse()).toEqual({
      type: 'or',
      operands: [
        {
          type: 'and',
          operands: [
            { type: 'reference', reference: { kind: 'a', path: ['ready'] }, text: '†a.ready' },
            {
              type: 'not',
              operand: {
                type: 'or',
                operands: [
                  { type: 'flag', on: false },
                  { type: 'reference', reference: { kind: 'b', path: [] }, text: '†b' },
                ],
              },
            },
          ],
        },
        { type: 'flag', on: true },
      ],
    });
  });

  it.each([
    ['†a && maybe', 6, "a reference, 'on', 'off' or '('"],
    ['(on', 3, "')'"],
    ['†a.', 3, 'a key after "."'],
    ['on off', 3, "'||', '&&' or end of expression"],
  ])('reports %j through the subclass error at position %i expecting %s', (text, position, expected) => {
    let caught: unknown;
    try {
      new FlagParser(text).parse();
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(FlagError);
    expect(caught).toMatchObject({ position, expected });
  });

  it('parses what parseExpression parses, the same way, without a subclass', () => {
    const text = '(†a.x && †b) || †c.0';
    expect(new ExpressionParser(text).parse()).toEqual(parseExpression(text));
  });
});

describe('evaluateExpression (input side)', () => {
  const context = new ContextLog([
    { type: 'data', data: { user: { name: 'Alex' }, empty: null } },
    { type: 'input', data: { query: 'weather' } },
  ]);

  it('|| falls back to the first path that resolves', () => {
    expect(evaluateExpression(context, '†input.name || †data.user.name')).toEqual({
      ready: true,
      value: 'Alex',
    });
    expect(evaluateExpression(context, '†input.query || †data.user.name')).toEqual({
      ready: true,
      value: 'weather',
    });
    expect(evaluateExpression(context, '†data.empty || †data.user.name')).toEqual({
      ready: true,
      value: null,
    });
  });

  it('|| with nothing resolved lists every missing path', () => {
    expect(evaluateExpression(context, '†input.a || †data.b')).toEqual({
      ready: false,
      missing: ['†input.a', '†data.b'],
    });
  });

  it('&& is a gate: all must resolve, the value is the last one', () => {
    expect(evaluateExpression(context, '†input.query && †data.user.name')).toEqual({
      ready: true,
      value: 'Alex',
    });
    expect(evaluateExpression(context, '†input.query && †data.later && †input.other')).toEqual({
      ready: false,
      missing: ['†data.later', '†input.other'],
    });
  });

  it('combines: (†a && †b) || †c', () => {
    expect(evaluateExpression(context, '(†data.x && †input.query) || †data.user')).toEqual({
      ready: true,
      value: { name: 'Alex' },
    });
  });
});

describe('parseOutputPath (output side)', () => {
  it('a single path is a success destination', () => {
    expect(parseOutputPath('†data.user.status')).toEqual({
      success: [{ kind: 'data', path: ['user', 'status'] }],
      failure: [],
    });
  });

  it('&& fans out and || splits success from failure', () => {
    expect(parseOutputPath('(†data.a && †state.b) || †data.error')).toEqual({
      success: [
        { kind: 'data', path: ['a'] },
        { kind: 'state', path: ['b'] },
      ],
      failure: [{ kind: 'data', path: ['error'] }],
    });
  });

  it('rejects three sides and || nested in &&, with positions', () => {
    expect(() => parseOutputPath('†a || †b || †c')).toThrow(/position 9: expected end of output path/);
    expect(() => parseOutputPath('†a && (†b || †c)')).toThrow(/position 10: expected '&&'/);
  });
});
