import { parseExpression, parseOutputPath, type Reference } from '@wharf/context-resolver';
import type { GraphDefinition, GraphTask } from './graph-definition.js';
import { type OutputPathNode, OutputPathTree, type OutputWriter } from './output-path-tree.js';
import type { SwarmIssue } from './swarm-definition-error.js';
import { conditionAsExpression, parseWhen } from './when-condition.js';

/** Fields of a task output value (what `output: †data.x` holds for a task without a loop) that are no list. */
const SCALAR_FIELDS: Readonly<Record<string, string>> = {
  outId: 'an out id',
  status: 'a status',
  bytes: 'a number',
  exitCode: 'a number',
};

/**
 * What the definition check can tell about reads of task outputs before anything runs:
 * - a loop's output path holds the stored list of its instances' values (`{ $manifest, count,
 *   status }`), so a reference inside it (`†data.fan.0`, `†data.fan.0.outId`) never resolves:
 *   only the path itself (the list) and `.count` may be read;
 * - a map loop's `over` that cannot be a list: a field of a task's output that is a scalar
 *   (`†data.list.bytes`, `.exitCode`, `.status`, `.outId`), or a path above every output written
 *   in it (`†data`: an object of outputs).
 * Malformed expressions are left to `validateReferences`, which reports them.
 *
 * @example
 * ```ts
 * validateStoredReads(definition); // [{ path: 'tasks.each.loop.over', message: 'loop.over †data.list.bytes is a number, not a list: …' }]
 * ```
 */
export function validateStoredReads(definition: GraphDefinition): SwarmIssue[] {
  const written = new OutputPathTree();
  for (const [task, spec] of Object.entries(definition.tasks)) {
    if (spec.output === undefined) continue;
    try {
      const plan = parseOutputPath(typeof spec.output === 'string' ? spec.output : spec.output.path);
      for (const reference of [...plan.success, ...plan.failure])
        if (reference.kind !== 'channels') written.add(task, reference, isLooped(spec));
    } catch {
      // reported by validateReferences
    }
  }
  if (written.empty) return [];
  const issues: SwarmIssue[] = [];
  for (const [task, spec] of Object.entries(definition.tasks)) {
    const reads: [where: string, text: string, over: boolean][] = [
      ...Object.entries(spec.inputs ?? {}).map(
        ([name, text]) => [`tasks.${task}.inputs.${name}`, text, false] as [string, string, boolean],
      ),
    ];
    if (spec.when !== undefined) reads.push([`tasks.${task}.when`, spec.when, false]);
    if (spec.loop?.over !== undefined) reads.push([`tasks.${task}.loop.over`, spec.loop.over, true]);
    for (const [where, text, over] of reads) {
      for (const reference of referencesOf(text, where.endsWith('.when'))) {
        const problem = check(reference, over, written);
        if (problem !== undefined) issues.push({ path: where, message: problem });
      }
    }
  }
  return issues;
}

/**
 * The problem of reading `reference`, if any. Walks the reference's path down the writers'
 * paths, so each check costs the length of the path (and, for an `over` above every writer,
 * the writers it names), not the number of writers. Of the writers of a path above the
 * reference, the first in document order that makes the read fail is named.
 */
function check(reference: Reference, over: boolean, written: OutputPathTree): string | undefined {
  const nodes = written.along(reference);
  if (nodes.length === 0) return undefined;
  const text = `†${[reference.kind, ...reference.path].join('.')}`;
  const last = reference.path.length - 1;
  let failing: { writer: OutputWriter; depth: number; scalar: boolean } | undefined;
  const consider = (writer: OutputWriter | undefined, depth: number, scalar: boolean) => {
    if (writer === undefined) return;
    if (failing === undefined || writer.index < failing.writer.index) failing = { writer, depth, scalar };
  };
  for (let depth = 0; depth <= last && depth < nodes.length; depth++) {
    const node = nodes[depth] as OutputPathNode;
    const field = reference.path[depth] as string;
    if (!(field === 'count' && depth === last)) consider(node.firstLooped, depth, false);
    if (over && depth === last && Object.hasOwn(SCALAR_FIELDS, field)) consider(node.firstPlain, depth, true);
  }
  if (failing !== undefined) {
    const { writer, depth, scalar } = failing;
    const whole = `†${[reference.kind, ...reference.path.slice(0, depth)].join('.')}`;
    if (!scalar) {
      return `${text} reads inside the output of loop ${writer.task}, which is the stored list of its instances' values: read ${whole} (the whole list) or ${whole}.count`;
    }
    const field = reference.path[depth] as string;
    return `loop.over ${text} is ${SCALAR_FIELDS[field]}, not a list: map over ${whole} (one instance per line of ${writer.task}'s output, or per element when it is a JSON array)`;
  }
  const target = nodes[last + 1];
  if (
    over &&
    reference.kind !== 'input' &&
    target !== undefined &&
    target.below.length > 0 &&
    nodes.every((node) => node.writers.length === 0)
  )
    return `loop.over ${text} is an object holding ${target.below.map((entry) => `†${[entry.reference.kind, ...entry.reference.path].join('.')}`).join(', ')}, not a list: map over one of them`;
  return undefined;
}

function isLooped(spec: GraphTask): boolean {
  return spec.loop?.type === 'map' || (spec.loop?.count ?? 1) > 1;
}

function referencesOf(text: string, condition: boolean): Reference[] {
  try {
    const expression = condition ? conditionAsExpression(parseWhen(text)) : parseExpression(text.trim());
    if (expression === undefined) return [];
    const found: Reference[] = [];
    const walk = (node: ReturnType<typeof parseExpression>): void => {
      if (node.type === 'reference') found.push(node.reference);
      else for (const operand of node.operands) walk(operand);
    };
    walk(expression);
    return found;
  } catch {
    return [];
  }
}
