import type { JsonValue } from '@wharf/common';
import { type Context, resolveReference } from './context.js';
import { type Expression, parseExpression } from './expression.js';
import type { ResolveOptions } from './scan-resolve.js';

/**
 * Outcome of evaluating an input expression: its value, or the references that are missing
 * (an orchestrator can wait until one of them is written and try again).
 *
 * @example
 * ```ts
 * const evaluation: Evaluation = evaluateExpression(context, '†data.a && †data.b');
 * if (!evaluation.ready) console.log('waiting for', evaluation.missing);
 * ```
 */
export type Evaluation =
  | { readonly ready: true; readonly value: JsonValue }
  | { readonly ready: false; readonly missing: readonly string[] };

/**
 * Evaluates an input-side expression against a context.
 *
 * - `†a`: the value at the path, or missing.
 * - `†a || †b`: fallback, the first operand that resolves; missing lists every operand's
 *   missing references when none does.
 * - `†a && †b`: gate, every operand must resolve and the value is the last one's; missing lists
 *   the references that did not resolve.
 *
 * A stored `null` counts as resolved.
 *
 * @example
 * ```ts
 * evaluateExpression(context, '†input.name || †data.user.name'); // { ready: true, value: 'Alex' }
 * evaluateExpression(context, '†data.a && †data.b'); // { ready: false, missing: ['†data.b'] }
 * ```
 */
export function evaluateExpression(
  context: Context,
  expression: string | Expression,
  options: ResolveOptions = {},
): Evaluation {
  const parsed = typeof expression === 'string' ? parseExpression(expression) : expression;
  return evaluate(context, parsed, options);
}

function evaluate(context: Context, expression: Expression, options: ResolveOptions): Evaluation {
  if (expression.type === 'reference') {
    const resolution = resolveReference(context, expression.reference, options);
    return resolution.found
      ? { ready: true, value: resolution.value }
      : { ready: false, missing: [expression.text] };
  }
  const missing: string[] = [];
  let last: JsonValue = null;
  for (const operand of expression.operands) {
    const result = evaluate(context, operand, options);
    if (result.ready) {
      if (expression.type === 'or') return result;
      last = result.value;
    } else {
      for (const text of result.missing) if (!missing.includes(text)) missing.push(text);
    }
  }
  return missing.length > 0 ? { ready: false, missing } : { ready: true, value: last };
}
