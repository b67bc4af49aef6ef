import {
  ContextResolverError,
  type Expression,
  expressionReferences,
  parseExpression,
  parseOutputPath,
  parseReference,
  type Reference,
} from '@wharf/context-resolver';
import type { GraphDefinition } from './graph-definition.js';
import { OutputPathTree, type OutputWriter } from './output-path-tree.js';
import type { SwarmIssue } from './swarm-definition-error.js';
import { conditionAsExpression, parseWhen } from './when-condition.js';

interface Reader {
  where: string;
  expression: Expression;
}

/** A writer list longer than this is shown by its first names. */
const WRITERS_SHOWN = 5;
/** Dependencies a reader's walk up to a writer may read before the bitsets decide instead. */
const NEARBY_EDGES = 64;

/**
 * Checks every task's `†` inputs (and its `when:` condition and map loop's `over`) against
 * the tasks that write them, before anything runs:
 * a reference nobody writes, or one written only by a task that does not run before the
 * reader (not among its dependencies, direct or transitive), is an issue. `†input.*` comes
 * from the start input or the `addInput` signal and is always allowed. With `||`, one
 * satisfiable side is enough. Malformed expressions and output paths are issues too.
 *
 * `order` lists every task with its dependencies first (no cycles). A reference written by one
 * of the reader's own dependencies is satisfied at once; one written a few tasks further up is
 * settled by a short walk up from the reader (at most 64 dependencies read). Only the writers
 * of the other references need to be known as running before a task (or not): that is
 * computed once along `order`, as a bitset over those writers, and each bitset is dropped once
 * every dependent has read it. A definition whose tasks read what is written nearby needs no
 * bitset at all.
 *
 * @example
 * ```ts
 * const issues = validateReferences(definition, ['fetch', 'report']);
 * ```
 */
export function validateReferences(definition: GraphDefinition, order: readonly string[]): SwarmIssue[] {
  const issues: SwarmIssue[] = [];
  const tree = new OutputPathTree();
  for (const [task, spec] of Object.entries(definition.tasks)) {
    if (spec.output === undefined) continue;
    const path = typeof spec.output === 'string' ? spec.output : spec.output.path;
    try {
      const plan = parseOutputPath(path);
      for (const reference of [...plan.success, ...plan.failure]) tree.add(task, reference, false);
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

  const writers = new WriterLookup(tree);
  const directlyBefore = (task: string) => {
    const dependencies = new Set(definition.tasks[task]?.depends_on ?? []);
    dependencies.delete(task);
    return (writer: string) => dependencies.has(writer);
  };
  // A reference no dependency writes: its writers a short walk up from the reader settles, by
  // reader; the others are the bitsets' tasks.
  const position = new Map(order.map((task, index) => [task, index]));
  const nearby = new Map<string, Map<string, boolean>>();
  const bits = new Map<string, number>();
  for (const [task, list] of readers) {
    const direct = directlyBefore(task);
    for (const { expression } of list) {
      for (const text of expressionReferences(expression)) {
        const writing = writers.of(text);
        if (writing === undefined || writing.some((writer) => direct(writer.task))) continue;
        const ancestors = nearbyAncestors(definition, position, task, writing);
        if (ancestors === undefined) {
          for (const writer of writing) if (!bits.has(writer.task)) bits.set(writer.task, bits.size);
          continue;
        }
        const settled = nearby.get(task) ?? new Map<string, boolean>();
        nearby.set(task, settled);
        for (const writer of writing) settled.set(writer.task, ancestors.has(writer.task));
      }
    }
  }

  const dependents = new Map<string, number>();
  if (bits.size > 0) {
    for (const task of order) {
      for (const dependency of definition.tasks[task]?.depends_on ?? []) {
        dependents.set(dependency, (dependents.get(dependency) ?? 0) + 1);
      }
    }
  }
  const words = Math.ceil(bits.size / 32);
  const before = new Map<string, Uint32Array>();
  for (const task of order) {
    const taskBits = new Uint32Array(words);
    if (words > 0) {
      for (const dependency of definition.tasks[task]?.depends_on ?? []) {
        if (dependency === task || !Object.hasOwn(definition.tasks, dependency)) continue;
        const inherited = before.get(dependency);
        if (inherited !== undefined) {
          for (let word = 0; word < words; word++)
            taskBits[word] = (taskBits[word] as number) | (inherited[word] as number);
        }
        const bit = bits.get(dependency);
        if (bit !== undefined) taskBits[bit >>> 5] = (taskBits[bit >>> 5] as number) | (1 << (bit & 31));
        const left = (dependents.get(dependency) ?? 1) - 1;
        dependents.set(dependency, left);
        if (left === 0) before.delete(dependency);
      }
      if ((dependents.get(task) ?? 0) > 0) before.set(task, taskBits);
    }
    const list = readers.get(task);
    if (list === undefined) continue;
    const direct = directlyBefore(task);
    const settled = nearby.get(task);
    const runsBefore = (writer: string) => {
      if (direct(writer)) return true;
      const known = settled?.get(writer);
      if (known !== undefined) return known;
      const bit = bits.get(writer);
      return bit !== undefined && ((taskBits[bit >>> 5] as number) & (1 << (bit & 31))) !== 0;
    };
    for (const { where, expression } of list) {
      const problems = unsatisfied(expression, (text) => check(text, task, runsBefore, writers));
      for (const message of problems) issues.push({ path: where, message });
    }
  }
  return issues;
}

/**
 * The ancestors of `task` placed at or after the first of `writing` in the task order, found
 * by walking `depends_on` up from it: every path from a writer to the task runs through tasks
 * placed between them, so the writers among the ancestors found are all that run before it.
 * Undefined once the walk has read more than {@link NEARBY_EDGES} dependencies (the bitsets
 * decide then), so that a reference written a few tasks up costs a few steps.
 */
function nearbyAncestors(
  definition: GraphDefinition,
  position: ReadonlyMap<string, number>,
  task: string,
  writing: readonly OutputWriter[],
): Set<string> | undefined {
  let first = Number.POSITIVE_INFINITY;
  for (const writer of writing) first = Math.min(first, position.get(writer.task) ?? first);
  const found = new Set<string>();
  const pending = [task];
  let budget = NEARBY_EDGES;
  while (pending.length > 0) {
    const next = pending.pop() as string;
    for (const dependency of definition.tasks[next]?.depends_on ?? []) {
      if (--budget < 0) return undefined;
      const at = position.get(dependency);
      if (dependency === next || at === undefined || at < first || found.has(dependency)) continue;
      found.add(dependency);
      pending.push(dependency);
    }
  }
  return found;
}

/** The destinations that write a reference, a part of it or a value that contains it, by reference text. */
class WriterLookup {
  readonly #tree: OutputPathTree;
  readonly #found = new Map<string, { reference: Reference; writing: OutputWriter[] | undefined }>();

  constructor(tree: OutputPathTree) {
    this.#tree = tree;
  }

  /** The parsed reference of `text` and its writers; no writers for `†input.*` (always allowed). */
  lookup(text: string): { reference: Reference; writing: OutputWriter[] | undefined } {
    let found = this.#found.get(text);
    if (found === undefined) {
      const reference = parseReference(text);
      found = { reference, writing: reference.kind === 'input' ? undefined : this.#writing(reference) };
      this.#found.set(text, found);
    }
    return found;
  }

  /** The writers of `text`, or undefined for `†input.*`. */
  of(text: string): OutputWriter[] | undefined {
    return this.lookup(text).writing;
  }

  /**
   * In document order, the writers of the reference's path, of the paths above it but the
   * kind's root, and of those below it; then the writers of the root (unless the reference
   * is the root itself, whose writers all come in document order).
   */
  #writing(reference: Reference): OutputWriter[] {
    const nodes = this.#tree.along(reference);
    const root = nodes[0];
    if (root === undefined) return [];
    const found: OutputWriter[] = [];
    const whole = reference.path.length === 0;
    for (let depth = whole ? 0 : 1; depth < nodes.length; depth++)
      for (const writer of nodes[depth]?.writers ?? []) found.push(writer);
    for (const writer of nodes[reference.path.length]?.below ?? []) found.push(writer);
    found.sort((left, right) => left.index - right.index);
    if (!whole) for (const writer of root.writers) found.push(writer);
    return found;
  }
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
  writers: WriterLookup,
): string | undefined {
  const { reference, writing } = writers.lookup(text);
  if (writing === undefined) return undefined;
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
