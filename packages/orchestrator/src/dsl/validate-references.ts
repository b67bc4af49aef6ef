import {
  ContextResolverError,
  type Expression,
  parseExpression,
  parseOutputPath,
  parseReference,
  type Reference,
} from '@wharf/context-resolver';
import type { GraphDefinition } from './graph-definition.js';
import { pathsOverlap } from './paths-overlap.js';
import type { SwarmIssue } from './swarm-definition-error.js';
import { conditionAsExpression, parseWhen } from './when-condition.js';

interface Destination {
  task: string;
  reference: Reference;
}

interface Reader {
  where: string;
  expression: Expression;
}

/** A writer list longer than this is shown by its first names. */
const WRITERS_SHOWN = 5;

/**
 * Checks every task's `†` inputs (and its `when:` condition and map loop's `over`) against
 * the tasks that write them, before anything runs:
 * a reference nobody writes, or one written only by a task that does not run before the
 * reader (not among its dependencies, direct or transitive), is an issue. `†input.*` comes
 * from the start input or the `addInput` signal and is always allowed. With `||`, one
 * satisfiable side is enough. Malformed expressions and output paths are issues too.
 *
 * `order` lists every task with its dependencies first (no cycles). What runs before each
 * task is computed once along it, as a bitset over the tasks that write outputs, and each
 * bitset is dropped once every dependent has read it.
 *
 * @example
 * ```ts
 * const issues = validateReferences(definition, ['fetch', 'report']);
 * ```
 */
export function validateReferences(definition: GraphDefinition, order: readonly string[]): SwarmIssue[] {
  const issues: SwarmIssue[] = [];
  const writers = new WriterIndex();
  for (const [task, spec] of Object.entries(definition.tasks)) {
    if (spec.output === undefined) continue;
    const path = typeof spec.output === 'string' ? spec.output : spec.output.path;
    try {
      const plan = parseOutputPath(path);
      for (const reference of [...plan.success, ...plan.failure]) writers.add({ task, reference });
    } catch (error) {
      issues.push({
        path: `tasks.${task}.output${typeof spec.output === 'string' ? '' : '.path'}`,
        message: describe(error),
      });
    }
  }

  const readers = new Map<string, Reader[]>();
  const read = (task: string, where: string, parse: () => Expression | undefined) => {
    try {
      const expression = parse();
      if (expression === undefined) return;
      const list = readers.get(task);
      if (list === undefined) readers.set(task, [{ where, expression }]);
      else list.push({ where, expression });
    } catch (error) {
      issues.push({ path: where, message: describe(error) });
    }
  };
  for (const [task, spec] of Object.entries(definition.tasks)) {
    for (const [name, text] of Object.entries(spec.inputs ?? {})) {
      read(task, `tasks.${task}.inputs.${name}`, () => parseExpression(text));
    }
    const { when } = spec;
    if (when !== undefined) read(task, `tasks.${task}.when`, () => conditionAsExpression(parseWhen(when)));
    const over = spec.loop?.over;
    if (over !== undefined) read(task, `tasks.${task}.loop.over`, () => parseExpression(over));
  }
  if (readers.size === 0) return issues;

  const dependents = new Map<string, number>();
  for (const task of order) {
    for (const dependency of definition.tasks[task]?.depends_on ?? []) {
      dependents.set(dependency, (dependents.get(dependency) ?? 0) + 1);
    }
  }
  const words = Math.ceil(writers.taskCount / 32);
  const before = new Map<string, Uint32Array>();
  for (const task of order) {
    const bits = new Uint32Array(words);
    for (const dependency of definition.tasks[task]?.depends_on ?? []) {
      if (dependency === task || !Object.hasOwn(definition.tasks, dependency)) continue;
      const inherited = before.get(dependency);
      if (inherited !== undefined) {
        for (let word = 0; word < words; word++)
          bits[word] = (bits[word] as number) | (inherited[word] as number);
      }
      const bit = writers.bitOf(dependency);
      if (bit !== undefined) bits[bit >>> 5] = (bits[bit >>> 5] as number) | (1 << (bit & 31));
      const left = (dependents.get(dependency) ?? 1) - 1;
      dependents.set(dependency, left);
      if (left === 0) before.delete(dependency);
    }
    const runsBefore = (writer: string) => {
      const bit = writers.bitOf(writer);
      return bit !== undefined && ((bits[bit >>> 5] as number) & (1 << (bit & 31))) !== 0;
    };
    for (const { where, expression } of readers.get(task) ?? []) {
      const problems = unsatisfied(expression, (reference) => check(reference, task, runsBefore, writers));
      for (const message of problems) issues.push({ path: where, message });
    }
    if ((dependents.get(task) ?? 0) > 0) before.set(task, bits);
  }
  return issues;
}

/** Output destinations by kind and first path segment, and a bit number per writing task. */
class WriterIndex {
  readonly #byKey = new Map<string, Destination[]>();
  readonly #byKind = new Map<string, Destination[]>();
  readonly #bits = new Map<string, number>();

  get taskCount(): number {
    return this.#bits.size;
  }

  add(destination: Destination): void {
    const { kind, path } = destination.reference;
    push(this.#byKind, kind, destination);
    push(this.#byKey, key(kind, path[0]), destination);
    if (!this.#bits.has(destination.task)) this.#bits.set(destination.task, this.#bits.size);
  }

  bitOf(task: string): number | undefined {
    return this.#bits.get(task);
  }

  /** Destinations that write `reference` or a part of it, or a value that contains it. */
  writing(reference: Reference): Destination[] {
    const candidates =
      reference.path.length === 0
        ? (this.#byKind.get(reference.kind) ?? [])
        : [
            ...(this.#byKey.get(key(reference.kind, reference.path[0])) ?? []),
            ...(this.#byKey.get(key(reference.kind, undefined)) ?? []),
          ];
    return candidates.filter((destination) => pathsOverlap(destination.reference.path, reference.path));
  }
}

function key(kind: string, first: string | undefined): string {
  return first === undefined ? `${kind}\u0000` : `${kind}\u0000.${first}`;
}

function push<TValue>(map: Map<string, TValue[]>, name: string, value: TValue): void {
  const list = map.get(name);
  if (list === undefined) map.set(name, [value]);
  else list.push(value);
}

/**
 * Problems that make `expression` unresolvable; `||` needs one side, `&&` every side.
 *
 * @example
 * ```ts
 * unsatisfied(parseExpression('†input.a || †input.b'), (reference) => `${reference} is missing`);
 * // ['†input.a is missing', '†input.b is missing']
 * ```
 */
export function unsatisfied(
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
  runsBefore: (writer: string) => boolean,
  writers: WriterIndex,
): string | undefined {
  const reference = parseReference(text);
  if (reference.kind === 'input') return undefined;
  const writing = writers.writing(reference);
  if (writing.length === 0) {
    return `no task writes ${text} (give a task \`output: †${reference.kind}.${reference.path[0] ?? ''}…\`, or use †input.* for start values)`;
  }
  if (writing.some((writer) => runsBefore(writer.task))) return undefined;
  const names = [...new Set(writing.map((writer) => writer.task))];
  const shown =
    names.length <= WRITERS_SHOWN
      ? names.join(', ')
      : `${names.slice(0, WRITERS_SHOWN).join(', ')} and ${names.length - WRITERS_SHOWN} more`;
  return `${text} is written by ${shown}, which does not run before ${task}: add ${names.length === 1 ? 'it' : 'one of them'} to depends_on`;
}

function describe(error: unknown): string {
  return ContextResolverError.isInstance(error) || error instanceof Error ? error.message : String(error);
}
