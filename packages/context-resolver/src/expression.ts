import { InvalidExpressionError } from './context-resolver-error.js';
import { REFERENCE_MARKER, type Reference, scanReference } from './path.js';

/**
 * A `†kind.path` reference inside an expression, with its text as written.
 *
 * @example
 * ```ts
 * const node: ReferenceExpression = { type: 'reference', reference: { kind: 'data', path: ['a'] }, text: '†data.a' };
 * ```
 */
export type ReferenceExpression = {
  readonly type: 'reference';
  readonly reference: Reference;
  readonly text: string;
};

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
  | ReferenceExpression
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
  return new ExpressionParser(text).parse();
}

/**
 * The recursive-descent parser of {@link parseExpression}, open to grammars built on it: `||`
 * over `&&` over terms, a term being an operand (a parenthesised expression or a `†` reference).
 * A subclass may read more in a term (prefix or infix operators: {@link ExpressionParser.parseTerm}),
 * accept more operands (literals: {@link ExpressionParser.parseOtherOperand}), say what it
 * expected in its own words and throw its own error ({@link ExpressionParser.fail}). Its node
 * type must include {@link ReferenceExpression} and the `or` / `and` nodes this class builds.
 * Positions are 0-based offsets in the text. Pure: no clock, no I/O.
 *
 * @example
 * ```ts
 * class FlagParser extends ExpressionParser<Expression | { type: 'flag'; on: boolean }> {
 *   protected override parseOtherOperand() {
 *     const on = this.accept('on');
 *     return on || this.accept('off') ? { type: 'flag' as const, on } : undefined;
 *   }
 * }
 * new FlagParser('†a.ready && on').parse(); // { type: 'and', operands: [{ type: 'reference', … }, { type: 'flag', on: true }] }
 * ```
 */
export class ExpressionParser<TNode extends { readonly type: string } = Expression> {
  /** Where parsing stands: an offset in {@link ExpressionParser.text}. */
  protected position = 0;
  protected readonly text: string;
  /** What {@link ExpressionParser.parse} expected where text is left over. */
  protected readonly expectedAtEnd: string = `'||', '&&' or end of expression`;
  /** What {@link ExpressionParser.parseOperand} expected where no operand starts. */
  protected readonly expectedOperand: string = `a reference '†kind.path' or '('`;

  constructor(text: string) {
    this.text = text;
  }

  /** Parses the whole text; anything left over is an error. */
  parse(): TNode {
    const node = this.parseOr();
    this.skipSpace();
    if (!this.atEnd()) this.fail(this.expectedAtEnd);
    return node;
  }

  protected parseOr(): TNode {
    const operands = [this.parseAnd()];
    while (this.accept('||')) operands.push(this.parseAnd());
    return operands.length === 1 ? (operands[0] as TNode) : this.node({ type: 'or', operands });
  }

  protected parseAnd(): TNode {
    const operands = [this.parseTerm()];
    while (this.accept('&&')) operands.push(this.parseTerm());
    return operands.length === 1 ? (operands[0] as TNode) : this.node({ type: 'and', operands });
  }

  /** What stands between `&&` and `||`: here an operand alone. */
  protected parseTerm(): TNode {
    return this.parseOperand();
  }

  /** A parenthesised expression, a reference, or what {@link ExpressionParser.parseOtherOperand} reads. */
  protected parseOperand(): TNode {
    this.skipSpace();
    if (this.accept('(')) {
      const inner = this.parseOr();
      if (!this.accept(')')) this.fail(`')'`);
      return inner;
    }
    if (this.text[this.position] === REFERENCE_MARKER) return this.parseReference();
    return this.parseOtherOperand() ?? this.fail(this.expectedOperand);
  }

  /** An operand this grammar adds, read at the current position, or `undefined` (none here). */
  protected parseOtherOperand(): TNode | undefined {
    return undefined;
  }

  protected parseReference(): TNode {
    const start = this.position;
    let scanned: ReturnType<typeof scanReference>;
    try {
      scanned = scanReference(this.text, start);
    } catch (error) {
      if (InvalidExpressionError.isInstance(error)) {
        this.position = error.position;
        this.fail(error.expected);
      }
      throw error;
    }
    this.position = scanned.end;
    return this.node({
      type: 'reference',
      reference: scanned.reference,
      text: this.text.slice(start, scanned.end),
    });
  }

  /** Skips white space, then consumes `token` if it comes next. */
  protected accept(token: string): boolean {
    this.skipSpace();
    if (!this.text.startsWith(token, this.position)) return false;
    this.position += token.length;
    return true;
  }

  protected skipSpace(): void {
    while (/\s/.test(this.text[this.position] ?? '')) this.position++;
  }

  protected atEnd(): boolean {
    return this.position >= this.text.length;
  }

  /** Throws the parse error at the current position; here an `InvalidExpressionError`. */
  protected fail(expected: string): never {
    throw new InvalidExpressionError({ expression: this.text, position: this.position, expected });
  }

  /** A node this class builds, in the subclass's node type (which includes these shapes). */
  private node(node: ReferenceExpression | { type: 'or' | 'and'; operands: TNode[] }): TNode {
    return node as unknown as TNode;
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
