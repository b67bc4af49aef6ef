import {
  expressionReferences,
  parseExpression,
  parseOutputPath,
  parseReference,
  type Reference,
} from '@wharf/context-resolver';
import type { SwarmDefinition } from '../contracts/swarm-schema.js';
import { nameHint } from './suggest-names.js';
import type { SwarmIssue } from './swarm-definition-error.js';
import { isLooped } from './task-instances.js';
import { ancestorsOf, dependencyOrder } from './validate-graph.js';

/** The reference kind of the user's channels (`†channels.<name>`). */
const CHANNELS = 'channels';
/** Channel types that take one write per superstep: their writers must run one after another. */
const SINGLE_WRITER = new Set(['last_value', 'ephemeral']);

/**
 * Checks the options that only mean something together, on a schema-valid definition:
 * - `output: †channels.<name>` names a declared channel, whole (no deeper path), with no
 *   `method` (the channel's type folds its writes); a `named_barrier` channel is written only
 *   by the tasks it expects; a `last_value` or `ephemeral` channel only by tasks that cannot run
 *   in the same superstep (ordered by `depends_on`, no `loop`);
 * - `†channels.<name>` inputs name a declared channel;
 * - `cleanup_strategy` belongs to the swarm's `limits` (it trims the one context pool), not a task's;
 * - `limits.compress_external: true` is refused: a swarm's full outputs go to the output store,
 *   which serves byte ranges of them, so there is no spill file for it to compress.
 *
 * Issues name the field path; `parseSwarm` adds the line and column.
 *
 * @example
 * ```ts
 * validateOptions(definition); // [{ path: 'tasks.scan.output', message: 'unknown channel "finding"; did you mean "findings"?' }]
 * ```
 */
export function validateOptions(definition: SwarmDefinition): SwarmIssue[] {
  const issues: SwarmIssue[] = [];
  const channelHint = nameHint(Object.keys(definition.channels));
  const declared = (name: string) => Object.hasOwn(definition.channels, name);
  const unknown = (name: string) =>
    `unknown channel "${name}"${channelHint(name)} (declare it under \`channels:\`)`;

  if (definition.limits?.compress_external === true)
    issues.push({ path: 'limits.compress_external', message: compressMessage });
  const writers = new Map<string, string[]>();
  for (const [task, spec] of Object.entries(definition.tasks)) {
    if (spec.limits?.compress_external === true)
      issues.push({ path: `tasks.${task}.limits.compress_external`, message: compressMessage });
    if (spec.limits?.cleanup_strategy !== undefined)
      issues.push({
        path: `tasks.${task}.limits.cleanup_strategy`,
        message:
          "cleanup_strategy trims the swarm's one context pool: set it in the swarm's `limits`, not a task's",
      });

    for (const [name, text] of Object.entries(spec.inputs)) {
      for (const reference of inputReferences(text)) {
        const channel = reference.path[0];
        if (reference.kind === CHANNELS && channel !== undefined && !declared(channel))
          issues.push({ path: `tasks.${task}.inputs.${name}`, message: unknown(channel) });
      }
    }

    if (spec.output === undefined) continue;
    const where = `tasks.${task}.output${typeof spec.output === 'string' ? '' : '.path'}`;
    let references: Reference[];
    try {
      const plan = parseOutputPath(typeof spec.output === 'string' ? spec.output : spec.output.path);
      references = [...plan.success, ...plan.failure].filter((reference) => reference.kind === CHANNELS);
    } catch {
      continue; // the reference check reports a malformed output path
    }
    if (references.length > 0 && typeof spec.output !== 'string' && spec.output.method !== 'set')
      issues.push({
        path: `tasks.${task}.output.method`,
        message: `a channel's type decides how its writes fold; drop \`method: ${spec.output.method}\``,
      });
    for (const reference of references) {
      const [name] = reference.path;
      if (name === undefined || reference.path.length > 1) {
        issues.push({ path: where, message: 'a task writes a whole channel: `†channels.<name>`' });
        continue;
      }
      const channel = definition.channels[name];
      if (channel === undefined) {
        issues.push({ path: where, message: unknown(name) });
        continue;
      }
      if (channel.type === 'named_barrier' && !channel.expected.includes(task))
        issues.push({
          path: where,
          message: `channel "${name}" is a named_barrier expecting ${channel.expected.join(', ')}; task ${task} is not one of them`,
        });
      if (SINGLE_WRITER.has(channel.type) && isLooped(spec))
        issues.push({
          path: where,
          message: `channel "${name}" (${channel.type}) takes one write per step; the loop instances of ${task} would write it at once (use a topic)`,
        });
      const list = writers.get(name);
      if (list === undefined) writers.set(name, [task]);
      else if (list.at(-1) !== task) list.push(task);
    }
  }

  const ancestors = ancestorsMemo(definition);
  const ordered = orderedWriters(definition);
  for (const [name, tasks] of writers) {
    const channel = definition.channels[name];
    if (channel === undefined || !SINGLE_WRITER.has(channel.type)) continue;
    if (tasks.length < 2 || ordered(tasks)) continue;
    for (let later = 1; later < tasks.length; later++) {
      for (let earlier = 0; earlier < later; earlier++) {
        const first = tasks[earlier] as string;
        const second = tasks[later] as string;
        if (ancestors(first).has(second) || ancestors(second).has(first)) continue;
        const output = definition.tasks[second]?.output;
        issues.push({
          path: `tasks.${second}.output${typeof output === 'object' ? '.path' : ''}`,
          message: `channel "${name}" (${channel.type}) takes one write per step, and ${first} and ${second} may run in the same step: order them with depends_on (or use a topic)`,
        });
      }
    }
  }
  return issues;
}

const compressMessage =
  'compress_external is not supported in a swarm: full outputs go to the output store (which serves byte ranges of them), not to spill files; remove it';

function inputReferences(text: string): Reference[] {
  try {
    return expressionReferences(parseExpression(text.trim())).map(parseReference);
  } catch {
    return []; // the reference check reports a malformed input
  }
}

/**
 * Whether every two of `writers` run one after the other (one is an ancestor of the other), in
 * one pass over the tasks: sorted by a topological order, each writer must have the writer
 * just before it among its ancestors, and that is so when it is the latest writer among them.
 * Linear in the definition for each channel, where checking every pair would cost a set of
 * ancestors per writer. Undefined order (a cycle, reported on its own): false, and the pairs
 * are checked one by one.
 */
function orderedWriters(definition: SwarmDefinition): (writers: readonly string[]) => boolean {
  let order: readonly string[] | undefined;
  let position: Map<string, number> | undefined;
  return (writers) => {
    if (order === undefined) {
      const sorted = dependencyOrder(definition.tasks);
      order = 'order' in sorted ? sorted.order : [];
      position = new Map(order.map((task, index) => [task, index]));
    }
    if (position === undefined || position.size === 0) return false;
    const writing = new Set(writers);
    // The position of the latest writer among each task's ancestors (-1: none).
    const latest = new Map<string, number>();
    for (const task of order) {
      let found = -1;
      for (const dependency of definition.tasks[task]?.depends_on ?? []) {
        const at = position.get(dependency);
        if (dependency === task || at === undefined) continue;
        found = Math.max(found, latest.get(dependency) ?? -1, writing.has(dependency) ? at : -1);
      }
      latest.set(task, found);
    }
    const sorted = [...writing].sort(
      (left, right) => (position?.get(left) ?? 0) - (position?.get(right) ?? 0),
    );
    return sorted.every(
      (writer, index) => index === 0 || latest.get(writer) === position?.get(sorted[index - 1] as string),
    );
  };
}

/** {@link ancestorsOf}, memoised per task. */
function ancestorsMemo(definition: SwarmDefinition): (task: string) => Set<string> {
  const memo = new Map<string, Set<string>>();
  return (task) => {
    let found = memo.get(task);
    if (found === undefined) {
      found = ancestorsOf(definition.tasks, task);
      memo.set(task, found);
    }
    return found;
  };
}
