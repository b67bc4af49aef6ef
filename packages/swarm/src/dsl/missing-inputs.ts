import { parseExpression, parseReference, resolveReference } from '@wharf/context-resolver';
import type { GraphDefinition } from './graph-definition.js';
import { unsatisfied } from './validate-references.js';
import { conditionAsExpression, parseWhen } from './when-condition.js';

/** A `†input.*` reference that the start values leave unresolved, and the fields that read it. */
export interface MissingInput {
  /** The reference as written, e.g. `†input.region`. */
  reference: string;
  /** Where it is read: `tasks.<task>.inputs.<name>`, `tasks.<task>.when`, `tasks.<task>.loop.over`. */
  readers: string[];
}

/**
 * The `†input.*` references a swarm needs that `input` does not hold: a task's inputs, its
 * `when:` condition or its map loop's `over` that cannot resolve without them (with `||`, one
 * side that resolves is enough, and other kinds are left to the tasks that write them). Without
 * a way to add them while it runs (`addInput`, `waitForInputsMs`), such a swarm fails at run
 * time, so it is refused before it starts. Reads the definition only: pure.
 *
 * @example
 * ```ts
 * missingInputs(parseSwarm('name: s\ntasks:\n  t: { inputs: { r: †input.region }, script: { content: echo } }'), {});
 * // [{ reference: '†input.region', readers: ['tasks.t.inputs.r'] }]
 * ```
 */
export function missingInputs(definition: GraphDefinition, input: Record<string, unknown>): MissingInput[] {
  const context = [{ type: 'input' as const, data: JSON.parse(JSON.stringify(input)) }];
  const given = (reference: string): string | undefined => {
    if (parseReference(reference).kind !== 'input') return undefined;
    return resolveReference(context, reference).found ? undefined : reference;
  };
  const missing = new Map<string, string[]>();
  const check = (where: string, read: () => ReturnType<typeof parseExpression> | undefined) => {
    let expression: ReturnType<typeof parseExpression> | undefined;
    try {
      expression = read();
    } catch {
      return; // a malformed expression is the definition check's to report
    }
    if (expression === undefined) return;
    for (const reference of new Set(unsatisfied(expression, given))) {
      const readers = missing.get(reference);
      if (readers === undefined) missing.set(reference, [where]);
      else readers.push(where);
    }
  };
  for (const [task, spec] of Object.entries(definition.tasks)) {
    for (const [name, text] of Object.entries(spec.inputs ?? {}))
      check(`tasks.${task}.inputs.${name}`, () => parseExpression(text));
    const { when } = spec;
    if (when !== undefined) check(`tasks.${task}.when`, () => conditionAsExpression(parseWhen(when)));
    const over = spec.loop?.over;
    if (over !== undefined) check(`tasks.${task}.loop.over`, () => parseExpression(over));
  }
  return [...missing].map(([reference, readers]) => ({ reference, readers }));
}
