import { InvalidExpressionError } from './context-resolver-error.js';
import { type Expression, parseExpression } from './expression.js';
import type { Reference } from './path.js';

/**
 * Where a call's output goes: every `success` destination, or every `failure` one.
 *
 * @example
 * ```ts
 * const plan: OutputPlan = parseOutputPath('†data.page || †data.error');
 * ```
 */
export interface OutputPlan {
  readonly success: readonly Reference[];
  readonly failure: readonly Reference[];
}

/**
 * Parses an `_outputPath` into its destinations.
 *
 * - `†a`: a successful result goes to `†a`; a failure goes nowhere.
 * - `†a && †b`: fan-out, the result goes to every destination.
 * - `†ok || †failed`: conditional outcome, a successful result goes to the left side, a failed
 *   call's error to the right side. Each side may itself be a fan-out (`(†a && †b) || †c`).
 *
 * More than two `||` sides, or a `||` inside a `&&`, is an `INVALID_EXPRESSION` error.
 *
 * @example
 * ```ts
 * parseOutputPath('†data.result || †data.error');
 * // { success: [{ kind: 'data', path: ['result'] }], failure: [{ kind: 'data', path: ['error'] }] }
 * ```
 */
export function parseOutputPath(text: string): OutputPlan {
  const expression = parseExpression(text);
  if (expression.type !== 'or') return { success: destinations(expression, text), failure: [] };
  if (expression.operands.length !== 2) {
    throw new InvalidExpressionError({
      expression: text,
      position: nthOr(text, 2),
      expected: 'end of output path (a conditional output has exactly two sides: success || failure)',
    });
  }
  const [success, failure] = expression.operands as [Expression, Expression];
  return { success: destinations(success, text), failure: destinations(failure, text) };
}

function destinations(expression: Expression, text: string): Reference[] {
  if (expression.type === 'reference') return [expression.reference];
  if (expression.type === 'and') return expression.operands.flatMap((operand) => destinations(operand, text));
  throw new InvalidExpressionError({
    expression: text,
    position: nthOr(text, 1),
    expected: "'&&' (a conditional '||' may only appear at the top of an output path)",
  });
}

function nthOr(text: string, count: number): number {
  let position = -1;
  for (let seen = 0; seen < count; seen++) {
    position = text.indexOf('||', position + 1);
    if (position < 0) return text.length;
  }
  return position;
}
