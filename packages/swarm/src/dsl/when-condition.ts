// A task's `when:` condition: parsed once, evaluated against `†` values. Pure and
// deterministic (safe in the workflow sandbox): no clock, no I/O.
import { type Expression, ExpressionParser, type ReferenceExpression } from '@wharf/context-resolver';
import { InvalidConditionError } from './invalid-condition-error.js';

/** A JSON literal in a condition: `'text'`, `"text"`, a number, `true`, `false`, `null`. */
export type ConditionLiteral = string | number | boolean | null;

/** A comparison operator. */
export type ComparisonOperator = '==' | '!=' | '<' | '<=' | '>' | '>=';

/**
 * A parsed `when:` condition.
 *
 * @example
 * ```ts
 * const condition: Condition = parseWhen('†data.check.exitCode == 0');
 * ```
 */
export type Condition =
  | ReferenceExpression
  | { readonly type: 'literal'; readonly value: ConditionLiteral }
  | { readonly type: 'not'; readonly operand: Condition }
  | {
      readonly type: 'compare';
      readonly operator: ComparisonOperator;
      readonly left: Condition;
      readonly right: Condition;
    }
  | { readonly type: 'and' | 'or'; readonly operands: readonly Condition[] };

const OPERATORS: readonly ComparisonOperator[] = ['==', '!=', '<=', '>=', '<', '>'];

/**
 * Parses a `when:` condition. The grammar, loosest first: `a || b`, `a && b`, `!a`,
 * `a == b` (also `!=`, `<`, `<=`, `>`, `>=`), and operands that are `†kind.path` references,
 * JSON literals (`'text'`, `"text"`, numbers, `true`, `false`, `null`) or parenthesised
 * conditions: the input expressions of `@wharf/context-resolver` (`||`, `&&`, references,
 * parentheses) with negation, comparisons and literals added. Throws
 * {@link InvalidConditionError} with the position and what was expected.
 *
 * @example
 * ```ts
 * parseWhen("†data.lint.exitCode == 0 && !†input.skip_tests");
 * ```
 */
export function parseWhen(text: string): Condition {
  return new ConditionParser(text).parse();
}

/** context-resolver's expression parser, with `!`, comparisons and literals in its terms. */
class ConditionParser extends ExpressionParser<Condition> {
  protected override readonly expectedAtEnd = `'||', '&&', a comparison or end of condition`;
  protected override readonly expectedOperand = `a reference '†kind.path', a literal or '('`;

  protected override parseTerm(): Condition {
    this.skipSpace();
    if (this.text[this.position] === '!' && this.text[this.position + 1] !== '=') {
      this.position += 1;
      return { type: 'not', operand: this.parseTerm() };
    }
    const left = this.parseOperand();
    this.skipSpace();
    const operator = OPERATORS.find((candidate) => this.text.startsWith(candidate, this.position));
    if (operator === undefined) return left;
    this.position += operator.length;
    return { type: 'compare', operator, left, right: this.parseOperand() };
  }

  protected override parseOtherOperand(): Condition | undefined {
    const char = this.text[this.position];
    if (char === "'" || char === '"') return { type: 'literal', value: this.parseString(char) };
    const word = /^(?:true|false|null|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)(?![\w.])/.exec(
      this.text.slice(this.position),
    )?.[0];
    if (word === undefined) return undefined;
    this.position += word.length;
    const value = word === 'true' ? true : word === 'false' ? false : word === 'null' ? null : Number(word);
    return { type: 'literal', value };
  }

  private parseString(quote: string): string {
    let value = '';
    let cursor = this.position + 1;
    while (cursor < this.text.length && this.text[cursor] !== quote) {
      if (this.text[cursor] === '\\' && cursor + 1 < this.text.length) cursor++;
      value += this.text[cursor];
      cursor++;
    }
    if (cursor >= this.text.length) {
      this.position = cursor;
      this.fail(`closing ${quote}`);
    }
    this.position = cursor + 1;
    return value;
  }

  protected override fail(expected: string): never {
    throw new InvalidConditionError({ condition: this.text, position: this.position, expected });
  }
}

/**
 * Every reference text in a condition, left to right, each once.
 *
 * @example
 * ```ts
 * conditionReferences(parseWhen('†a.x == 1 || †b')); // ['†a.x', '†b']
 * ```
 */
export function conditionReferences(condition: Condition): string[] {
  const found: string[] = [];
  const visit = (node: Condition): void => {
    if (node.type === 'reference') {
      if (!found.includes(node.text)) found.push(node.text);
    } else if (node.type === 'not') visit(node.operand);
    else if (node.type === 'compare') {
      visit(node.left);
      visit(node.right);
    } else if (node.type !== 'literal') for (const operand of node.operands) visit(operand);
  };
  visit(condition);
  return found;
}

/**
 * The references a condition needs, as an input expression for the definition checks: `||`
 * needs one side, everything else every reference. `undefined` when it needs none (a side of
 * an `||` that is a literal alone, or no reference at all).
 *
 * @example
 * ```ts
 * conditionAsExpression(parseWhen('†a == 1 || †b')); // the expression †a || †b
 * ```
 */
export function conditionAsExpression(condition: Condition): Expression | undefined {
  switch (condition.type) {
    case 'reference':
      return condition;
    case 'literal':
      return undefined;
    case 'not':
      return conditionAsExpression(condition.operand);
    case 'or': {
      const operands = condition.operands.map(conditionAsExpression);
      if (operands.some((operand) => operand === undefined)) return undefined;
      return { type: 'or', operands: operands as Expression[] };
    }
    default: {
      const parts = condition.type === 'compare' ? [condition.left, condition.right] : condition.operands;
      const operands = parts.map(conditionAsExpression).filter((operand) => operand !== undefined);
      if (operands.length === 0) return undefined;
      return operands.length === 1 ? operands[0] : { type: 'and', operands };
    }
  }
}
