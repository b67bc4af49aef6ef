import {
  type Expression,
  expressionReferences,
  parseExpression,
  parseReference,
} from '@wharf/context-resolver';
import type { GraphDefinition } from './graph-definition.js';
import { unsatisfied } from './validate-references.js';
import { conditionAsExpression, parseWhen } from './when-condition.js';

/** An input a swarm cannot run without: the names that would do (one of them), and where it is read. */
export interface MissingSwarmInput {
  /** `†input.<name>` names, any one of which would do (`||`), or all of which are needed (`&&`). */
  names: string[];
  /** `any` when one of `names` is enough. */
  need: 'any' | 'all';
  /** Where it is read: `tasks.<task>.inputs.<name>`, `tasks.<task>.when`, `tasks.<task>.loop.over`. */
  reader: string;
}

/** Every expression of a definition that may read `†input`: where it is read and what it is. */
function readers(definition: GraphDefinition): { reader: string; expression: Expression }[] {
  const out: { reader: string; expression: Expression }[] = [];
  const add = (reader: string, read: () => Expression | undefined) => {
    try {
      const expression = read();
      if (expression !== undefined) out.push({ reader, expression });
    } catch {
      // a malformed expression is the definition check's to report
    }
  };
  for (const [task, spec] of Object.entries(definition.tasks)) {
    for (const [name, text] of Object.entries(spec.inputs ?? {}))
      add(`tasks.${task}.inputs.${name}`, () => parseExpression(text));
    const { when } = spec;
    if (when !== undefined) add(`tasks.${task}.when`, () => conditionAsExpression(parseWhen(when)));
    const over = spec.loop?.over;
    if (over !== undefined) add(`tasks.${task}.loop.over`, () => parseExpression(over));
  }
  return out;
}

/** The top-level name of an `†input.<name>…` reference, else undefined. */
function inputName(reference: string): string | undefined {
  const parsed = parseReference(reference);
  return parsed.kind === 'input' ? parsed.path[0] : undefined;
}

/**
 * The input names a swarm reads as `†input.<name>…` in its tasks' inputs, `when:` conditions and
 * map loops' `over`. A swarm declares no inputs: what it reads is what it takes. Pure.
 *
 * @example
 * ```ts
 * swarmInputNames(parseSwarm('name: s\ntasks:\n  t: { inputs: { r: †input.region }, script: { content: echo } }'));
 * // Set { 'region' }
 * ```
 */
export function swarmInputNames(definition: GraphDefinition): Set<string> {
  const names = new Set<string>();
  for (const { expression } of readers(definition)) {
    for (const reference of expressionReferences(expression)) {
      const name = inputName(reference);
      if (name !== undefined) names.add(name);
    }
  }
  return names;
}

/**
 * What a swarm reads of `†input` that cannot resolve when it is given the inputs named `passed`
 * and nothing else adds any (an `||` with a side that resolves, or that reads what a task
 * writes, is enough): one entry per expression. Pure.
 *
 * @example
 * ```ts
 * missingSwarmInputs(parseSwarm('name: s\ntasks:\n  t: { inputs: { r: †input.region }, script: { content: echo } }'), []);
 * // [{ names: ['region'], need: 'all', reader: 'tasks.t.inputs.r' }]
 * ```
 */
export function missingSwarmInputs(
  definition: GraphDefinition,
  passed: Iterable<string>,
): MissingSwarmInput[] {
  const given = new Set(passed);
  const missing: MissingSwarmInput[] = [];
  for (const { reader, expression } of readers(definition)) {
    const names = unsatisfied(expression, (reference) => {
      const name = inputName(reference);
      return name === undefined || given.has(name) ? undefined : name;
    });
    if (names.length === 0) continue;
    missing.push({ names: [...new Set(names)], need: expression.type === 'or' ? 'any' : 'all', reader });
  }
  return missing;
}
