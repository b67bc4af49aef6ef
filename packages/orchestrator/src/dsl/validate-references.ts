import {
  ContextResolverError,
  type Expression,
  parseExpression,
  parseOutputPath,
  parseReference,
  type Reference,
} from '@wharf/context-resolver';
import type { SwarmIssue } from './swarm-definition-error.js';
import type { SwarmDefinition } from './swarm-schema.js';
import { ancestorsOf } from './validate-graph.js';

interface Destination {
  task: string;
  reference: Reference;
}

/**
 * Checks every task's `†` inputs against the tasks that write them, before anything runs:
 * a reference nobody writes, or one written only by a task that does not run before the
 * reader (not among its dependencies, direct or transitive), is an issue. `†input.*` comes
 * from the start input or the `addInput` signal and is always allowed. With `||`, one
 * satisfiable side is enough. Malformed expressions and output paths are issues too.
 *
 * @example
 * ```ts
 * const issues = validateReferences(definition);
 * ```
 */
export function validateReferences(definition: SwarmDefinition): SwarmIssue[] {
  const issues: SwarmIssue[] = [];
  const destinations: Destination[] = [];
  for (const [task, spec] of Object.entries(definition.tasks)) {
    if (spec.output === undefined) continue;
    const path = typeof spec.output === 'string' ? spec.output : spec.output.path;
    try {
      const plan = parseOutputPath(path);
      for (const reference of [...plan.success, ...plan.failure]) destinations.push({ task, reference });
    } catch (error) {
      issues.push({
        path: `tasks.${task}.output${typeof spec.output === 'string' ? '' : '.path'}`,
        message: describe(error),
      });
    }
  }

  for (const [task, spec] of Object.entries(definition.tasks)) {
    const before = ancestorsOf(definition.tasks, task);
    for (const [name, text] of Object.entries(spec.inputs)) {
      const where = `tasks.${task}.inputs.${name}`;
      let expression: Expression;
      try {
        expression = parseExpression(text);
      } catch (error) {
        issues.push({ path: where, message: describe(error) });
        continue;
      }
      const problems = unsatisfied(expression, (reference) => check(reference, task, before, destinations));
      for (const message of problems) issues.push({ path: where, message });
    }
  }
  return issues;
}

/** Problems that make `expression` unresolvable; `||` needs one side, `&&` every side. */
function unsatisfied(
  expression: Expression,
  checkReference: (reference: string) => string | undefined,
): string[] {
  if (expression.type === 'reference') {
    const problem = checkReference(expression.text);
    return problem === undefined ? [] : [problem];
  }
  const results = expression.operands.map((operand) => unsatisfied(operand, checkReference));
  if (expression.type === 'or')
    return results.some((problems) => problems.length === 0) ? [] : results.flat();
  return results.flat();
}

function check(
  text: string,
  task: string,
  before: Set<string>,
  destinations: readonly Destination[],
): string | undefined {
  const reference = parseReference(text);
  if (reference.kind === 'input') return undefined;
  const writers = destinations.filter(
    (destination) =>
      destination.reference.kind === reference.kind && overlaps(destination.reference.path, reference.path),
  );
  if (writers.length === 0) {
    return `no task writes ${text} (give a task \`output: †${reference.kind}.${reference.path[0] ?? ''}…\`, or use †input.* for start values)`;
  }
  if (writers.some((writer) => before.has(writer.task))) return undefined;
  const names = [...new Set(writers.map((writer) => writer.task))];
  return `${text} is written by ${names.join(', ')}, which does not run before ${task}: add ${names.length === 1 ? 'it' : 'one of them'} to depends_on`;
}

function overlaps(left: readonly string[], right: readonly string[]): boolean {
  const length = Math.min(left.length, right.length);
  for (let index = 0; index < length; index++) if (left[index] !== right[index]) return false;
  return true;
}

function describe(error: unknown): string {
  return ContextResolverError.isInstance(error) || error instanceof Error ? error.message : String(error);
}
