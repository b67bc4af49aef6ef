import { InvalidExpressionError } from './context-resolver-error.js';
import { type Reference, scanReference } from './path.js';

/**
 * A parsed expression: a reference, a fallback (`||`, first that resolves / conditional
 * outcome) or a gate (`&&`, all must resolve / fan-out). `&&` binds tighter than `||`;
 * parentheses group.
 *
 * @example
 * ```ts
 * const expression: Expression = parseExpression('†input.name || †data.user.name');
 * ```
 */
export type Expression =
  | { readonly type: 'reference'; readonly reference: Reference; readonly text: string }
  | { readonly type: 'or'; readonly operands: readonly Expression[] }
  | { readonly type: 'and'; readonly operands: readonly Expression[] };

/**
 * Parses `†a || †b`, `†a && †b`, `(†a && †b) || †c`. Throws `InvalidExpressionError` (code
 * `INVALID_EXPRESSION`) with the position and the expected token when malformed.
 *
 * @example
 * ```ts
 * parseExpression('†input.name || †data.user.name');
 * // { type: 'or', operands: [{ type: 'reference', … }, { type: 'reference', … }] }
 * ```
 */
export function parseExpression(text: string): Expression {
  const parser = new Parser(text);
  const expression = parser.parseOr();
  parser.skipSpace();
  if (!parser.atEnd()) parser.fail(`'||', '&&' or end of expression`);
  return expression;
}

class Parser {
  position = 0;
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }

  parseOr(): Expression {
    const operands = [this.parseAnd()];
    while (this.accept('||')) operands.push(this.parseAnd());
    return operands.length === 1 ? (operands[0] as Expression) : { type: 'or', operands };
  }

  parseAnd(): Expression {
    const operands = [this.parsePrimary()];
    while (this.accept('&&')) operands.push(this.parsePrimary());
    return operands.length === 1 ? (operands[0] as Expression) : { type: 'and', operands };
  }

  parsePrimary(): Expression {
    this.skipSpace();
    if (this.accept('(')) {
      const inner = this.parseOr();
      if (!this.accept(')')) this.fail(`')'`);
      return inner;
    }
    if (this.text[this.position] !== '†') this.fail(`a reference '†kind.path' or '('`);
    const start = this.position;
    let scanned: ReturnType<typeof scanReference>;
    try {
      scanned = scanReference(this.text, start);
    } catch (error) {
      if (error instanceof InvalidExpressionError) {
        this.position = error.position;
        this.fail(error.expected);
      }
      throw error;
    }
    this.position = scanned.end;
    return { type: 'reference', reference: scanned.reference, text: this.text.slice(start, scanned.end) };
  }

  accept(token: string): boolean {
    this.skipSpace();
    if (!this.text.startsWith(token, this.position)) return false;
    this.position += token.length;
    return true;
  }

  skipSpace(): void {
    while (/\s/.test(this.text[this.position] ?? '')) this.position++;
  }

  atEnd(): boolean {
    return this.position >= this.text.length;
  }

  fail(expected: string): never {
    throw new InvalidExpressionError({ expression: this.text, position: this.position, expected });
  }
}

/**
 * Every reference text in an expression, left to right.
 *
 * @example
 * ```ts
 * expressionReferences(parseExpression('†a.x && †b.y')); // ['†a.x', '†b.y']
 * ```
 */
export function expressionReferences(expression: Expression): string[] {
  if (expression.type === 'reference') return [expression.text];
  return expression.operands.flatMap(expressionReferences);
}
