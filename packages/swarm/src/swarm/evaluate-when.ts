// Pure: evaluates a task's `when:` condition. Runs inside the workflow sandbox.
import type { ComparisonOperator, Condition } from '../dsl/when-condition.js';

/**
 * What a reference in a condition reads: a value, `pending` (it may still be written: its
 * writer has not finished, or it is `†input.*`), or `dead` (nothing can write it any more:
 * the untaken side of a `||` output, the output of a skipped task).
 */
export type ConditionLookup = (
  reference: string,
) => { state: 'value'; value: unknown } | { state: 'pending' } | { state: 'dead' };

/** Outcome of {@link evaluateWhen}: decided, or waiting for the listed references. */
export type WhenOutcome = { decided: true; value: boolean } | { decided: false; waitingFor: string[] };

type Partial = { ready: true; value: unknown } | { ready: false; missing: string[] };

/**
 * Evaluates a `when:` condition.
 *
 * - **Truthy**: everything except `false`, `null`, `0`, a blank string, `[]` and `{}`.
 * - **Dead references** read as `null`: `when: †data.x` is false (the task is skipped) and
 *   `when: !†data.x` is true once nothing can write `†data.x`.
 * - **Pending references** leave the condition undecided, unless the rest decides it:
 *   `false && †pending` is false, `true || †pending` is true.
 * - **Comparisons**: `==`/`!=` compare JSON values deeply; a string compares with its
 *   surrounding whitespace trimmed (a script's `preview` ends with a newline), and a number
 *   equals a string holding that number. `<`, `<=`, `>`, `>=` compare numbers (or numeric
 *   strings) and strings; any other pair is false.
 *
 * @example
 * ```ts
 * evaluateWhen(parseWhen('†data.lint.exitCode == 0'), (reference) => ({ state: 'value', value: 0 }));
 * // { decided: true, value: true }
 * ```
 */
export function evaluateWhen(condition: Condition, lookup: ConditionLookup): WhenOutcome {
  const result = evaluate(condition, lookup);
  return result.ready
    ? { decided: true, value: truthy(result.value) }
    : { decided: false, waitingFor: result.missing };
}

/**
 * Whether a value counts as true in a condition.
 *
 * @example
 * ```ts
 * truthy([]); // false
 * truthy('no'); // true
 * ```
 */
export function truthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === 0) return false;
  if (typeof value === 'number') return !Number.isNaN(value);
  if (typeof value === 'string') return value.trim() !== '';
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return true;
}

function evaluate(condition: Condition, lookup: ConditionLookup): Partial {
  switch (condition.type) {
    case 'literal':
      return { ready: true, value: condition.value };
    case 'reference': {
      const found = lookup(condition.text);
      if (found.state === 'value') return { ready: true, value: found.value };
      return found.state === 'dead'
        ? { ready: true, value: null }
        : { ready: false, missing: [condition.text] };
    }
    case 'not': {
      const operand = evaluate(condition.operand, lookup);
      return operand.ready ? { ready: true, value: !truthy(operand.value) } : operand;
    }
    case 'compare': {
      const left = evaluate(condition.left, lookup);
      const right = evaluate(condition.right, lookup);
      if (left.ready && right.ready)
        return { ready: true, value: compare(condition.operator, left.value, right.value) };
      return { ready: false, missing: union(missingOf(left), missingOf(right)) };
    }
    default: {
      // `and` is false once one side is false, `or` true once one side is true, whatever is pending.
      const decisive = condition.type === 'or';
      let missing: string[] = [];
      for (const operand of condition.operands) {
        const result = evaluate(operand, lookup);
        if (!result.ready) missing = union(missing, result.missing);
        else if (truthy(result.value) === decisive) return { ready: true, value: decisive };
      }
      return missing.length > 0 ? { ready: false, missing } : { ready: true, value: !decisive };
    }
  }
}

function compare(operator: ComparisonOperator, left: unknown, right: unknown): boolean {
  if (operator === '==') return equal(left, right);
  if (operator === '!=') return !equal(left, right);
  const a = numeric(left);
  const b = numeric(right);
  let order: number;
  if (a !== undefined && b !== undefined) order = a - b;
  else if (typeof left === 'string' && typeof right === 'string') {
    const l = left.trim();
    const r = right.trim();
    order = l < r ? -1 : l > r ? 1 : 0;
  } else return false;
  if (operator === '<') return order < 0;
  if (operator === '<=') return order <= 0;
  if (operator === '>') return order > 0;
  return order >= 0;
}

function equal(left: unknown, right: unknown): boolean {
  if (typeof left === 'string' && typeof right === 'string') return left.trim() === right.trim();
  if (typeof left === 'number' || typeof right === 'number') {
    const a = numeric(left);
    const b = numeric(right);
    return a !== undefined && b !== undefined && a === b;
  }
  if (left === null || right === null || typeof left !== 'object' || typeof right !== 'object')
    return left === right;
  if (Array.isArray(left) !== Array.isArray(right)) return false;
  const leftKeys = Object.keys(left);
  const rightKeys = Object.keys(right);
  return (
    leftKeys.length === rightKeys.length &&
    leftKeys.every(
      (key) =>
        Object.hasOwn(right, key) &&
        equal((left as Record<string, unknown>)[key], (right as Record<string, unknown>)[key]),
    )
  );
}

function numeric(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const parsed = Number(value.trim());
  return Number.isNaN(parsed) ? undefined : parsed;
}

function missingOf(result: Partial): string[] {
  return result.ready ? [] : result.missing;
}

function union(left: readonly string[], right: readonly string[]): string[] {
  return [...left, ...right.filter((item) => !left.includes(item))];
}
