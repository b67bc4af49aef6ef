// Pure: decides, for one superstep, which tasks run, wait or are skipped. Runs inside the
// workflow sandbox (no clocks, no I/O); the workflow applies the decisions.
import {
  type Expression,
  parseExpression,
  parseOutputPath,
  parseReference,
  type Reference,
} from '@wharf/context-resolver';
import { evaluateWhen } from '../control/evaluate-when.js';
import { expandMapLoop } from '../control/expand-map-loop.js';
import { pathsOverlap } from '../dsl/paths-overlap.js';
import { parseWhen } from '../dsl/when-condition.js';
import type { SwarmDefinition, TaskDefinition } from '../shared/swarm-schema.js';
import { isFinished, isOpen } from '../shared/task-status.js';
import type { TaskStatus } from '../shared/types.js';
import type { InputResolution } from './swarm-context.js';

/** What {@link planTasks} sees of a running swarm. */
export interface PlanView {
  definition: SwarmDefinition;
  /** The task's current status. */
  status(task: string): TaskStatus;
  /** True when every dependency of the task has arrived at its join barrier. */
  joined(task: string): boolean;
  /** Resolves the task's inputs (for one loop instance, or `undefined` without a loop). */
  resolve(task: string, instance: number | undefined): InputResolution;
  /** Resolves one `†` expression for a task (its `when:` references, its map loop's `over`). */
  evaluate(task: string, expression: string): InputResolution;
  /**
   * False while a task's `approval:` gate has not approved it; `instances` is how many it would
   * run now (a re-run that reuses all of them runs nothing and needs no approval).
   */
  approved(task: string, instances: number): boolean;
}

/** One decision of {@link planTasks}. */
export type TaskDecision =
  | { task: string; action: 'skip'; reason: string }
  | { task: string; action: 'wait'; waitingFor: string[] }
  /** Could run, but its `approval:` gate has not approved it yet. */
  | { task: string; action: 'approval' }
  /** Cannot run: its map loop's `over` is not a list. */
  | { task: string; action: 'fail'; reason: string }
  /** A map loop's instances carry its `item` and `index` among their inputs; none for an empty list. */
  | { task: string; action: 'run'; instances: { instance: number; inputs: Record<string, unknown> }[] };

/** A path some task's `output` writes: on success, or (the right side of `||`) on failure. */
export interface OutputDestination {
  task: string;
  reference: Reference;
  on: 'success' | 'failure';
}

/**
 * Decides what happens to every `pending` or `waiting` task, in task order:
 * - `skip` when a dependency failed, was skipped or cancelled (unless the task reads that
 *   dependency's `||` failure branch and the dependency failed), or when an input can no
 *   longer resolve: every task that could write the missing path has finished (the untaken
 *   side of a `||` output, an output of a skipped task). `†input.*` can always still arrive.
 *   Skips are applied until nothing changes, so they propagate down the graph.
 * - `run` with every instance's resolved inputs when the dependencies arrived and the inputs
 *   resolve; `wait` with the missing paths otherwise.
 *
 * @example
 * ```ts
 * const decisions = planTasks({ definition, status, joined, resolve, evaluate, approved });
 * ```
 */
export function planTasks(view: PlanView): TaskDecision[] {
  const { definition } = view;
  const destinations = outputDestinations(definition);
  const skipped = new Map<string, string>();
  const status = (task: string): TaskStatus => (skipped.has(task) ? 'skipped' : view.status(task));
  const open = Object.keys(definition.tasks).filter((task) => isOpen(view.status(task)));
  const resolutions = new Map<string, InputResolution[]>();
  const resolveAll = (task: string): InputResolution[] => {
    let cached = resolutions.get(task);
    if (cached === undefined) {
      const spec = definition.tasks[task] as TaskDefinition;
      const items = spec.loop?.type === 'map' ? mapItems(task) : undefined;
      if (items !== undefined && !Array.isArray(items)) cached = [];
      else if (items !== undefined) {
        // Every item is an instance, even a single one: `task#0` reads and writes as an instance.
        cached = items.map((item, index) => {
          const resolution = view.resolve(task, index);
          return resolution.ready
            ? { ready: true, values: { ...resolution.values, item, index } }
            : resolution;
        });
      } else {
        const total = spec.loop?.count ?? 1;
        cached = Array.from({ length: total }, (_, instance) =>
          view.resolve(task, total > 1 ? instance : undefined),
        );
      }
      resolutions.set(task, cached);
    }
    return cached;
  };
  /** A map loop's items; its `over` resolution while unresolved; a reason when it is no list. */
  const overs = new Map<string, unknown[] | InputResolution | string>();
  const mapItems = (task: string): unknown[] | InputResolution | string => {
    let cached = overs.get(task);
    if (cached === undefined) {
      const loop = (definition.tasks[task] as TaskDefinition).loop;
      const resolution = loop?.type === 'map' ? view.evaluate(task, loop.over) : undefined;
      if (resolution === undefined) cached = [];
      else if (!resolution.ready) cached = resolution;
      else {
        const expansion = expandMapLoop(resolution.values.value);
        cached = expansion.ok ? expansion.items : expansion.reason;
      }
      overs.set(task, cached);
    }
    return cached;
  };
  /** A `when:` condition's outcome; `undefined` without a condition. */
  const conditions = new Map<string, ReturnType<typeof evaluateWhen>>();
  const condition = (task: string): ReturnType<typeof evaluateWhen> | undefined => {
    const text = (definition.tasks[task] as TaskDefinition).when;
    if (text === undefined) return undefined;
    let cached = conditions.get(task);
    if (cached === undefined) {
      cached = evaluateWhen(parseWhen(text), (reference) => {
        const resolution = view.evaluate(task, reference);
        if (resolution.ready) return { state: 'value', value: resolution.values.value };
        return isDead(reference) ? { state: 'dead' } : { state: 'pending' };
      });
      // A condition waiting on a path that a later skip makes dead is decided again.
      if (cached.decided) conditions.set(task, cached);
    }
    return cached;
  };
  /** True once nothing can write the reference: `†input.*` never, else every writer finished. */
  const isDead = (text: string): boolean => {
    const reference = parseReference(text);
    if (reference.kind === 'input') return false;
    return !destinations.some(
      (destination) =>
        destination.reference.kind === reference.kind &&
        pathsOverlap(destination.reference.path, reference.path) &&
        !isFinished(status(destination.task)),
    );
  };

  for (let changed = true; changed; ) {
    changed = false;
    for (const task of open) {
      if (skipped.has(task)) continue;
      const reason = skipReason(task);
      if (reason === undefined) continue;
      skipped.set(task, reason);
      changed = true;
    }
  }

  const decisions: TaskDecision[] = [];
  for (const task of open) {
    const reason = skipped.get(task);
    if (reason !== undefined) {
      decisions.push({ task, action: 'skip', reason });
      continue;
    }
    const spec = definition.tasks[task] as TaskDefinition;
    if (spec.depends_on.length > 0 && !view.joined(task)) continue;
    const gate = condition(task);
    if (gate !== undefined && !gate.decided) {
      decisions.push({ task, action: 'wait', waitingFor: gate.waitingFor });
      continue;
    }
    const items = spec.loop?.type === 'map' ? mapItems(task) : undefined;
    if (typeof items === 'string') {
      decisions.push({ task, action: 'fail', reason: items });
      continue;
    }
    if (items !== undefined && !Array.isArray(items)) {
      decisions.push({ task, action: 'wait', waitingFor: items.ready ? [] : items.missing });
      continue;
    }
    const missing = new Set<string>();
    const instances: { instance: number; inputs: Record<string, unknown> }[] = [];
    resolveAll(task).forEach((resolution, instance) => {
      if (resolution.ready) instances.push({ instance, inputs: resolution.values });
      else for (const path of resolution.missing) missing.add(path);
    });
    if (missing.size > 0) decisions.push({ task, action: 'wait', waitingFor: [...missing] });
    else if (!view.approved(task, instances.length)) decisions.push({ task, action: 'approval' });
    else decisions.push({ task, action: 'run', instances });
  }
  return decisions;

  function skipReason(task: string): string | undefined {
    const spec = definition.tasks[task] as TaskDefinition;
    const blocked = spec.depends_on.find((dependency) => {
      const other = status(dependency);
      if (other === 'failed' && readsFailureOf(spec, dependency, destinations)) return false;
      return other === 'failed' || other === 'skipped' || other === 'cancelled';
    });
    if (blocked !== undefined) return `dependency ${blocked} ${status(blocked)}`;
    const gate = condition(task);
    if (gate?.decided && !gate.value) return `when: ${spec.when} is false`;
    if (spec.loop?.type === 'map') {
      const items = mapItems(task);
      if (typeof items !== 'string' && !Array.isArray(items) && !items.ready) {
        const dead = unresolvable(
          { over: spec.loop.over },
          { ...items, arguments: [{ argument: 'over', missing: items.missing }] },
          isDead,
        );
        if (dead.length > 0) return `loop.over ${dead.join(', ')} can no longer be written`;
      }
    }
    for (const resolution of resolveAll(task)) {
      if (resolution.ready) continue;
      const dead = unresolvable(spec.inputs, resolution, isDead);
      if (dead.length > 0) {
        const writers = [
          ...new Set(
            destinations
              .filter((destination) =>
                dead.some((text) => {
                  const reference = parseReference(text);
                  return (
                    destination.reference.kind === reference.kind &&
                    pathsOverlap(destination.reference.path, reference.path)
                  );
                }),
              )
              .map((destination) => `${destination.task} ${status(destination.task)}`),
          ),
        ];
        return `input ${dead.join(', ')} can no longer be written${writers.length > 0 ? ` (${writers.join(', ')})` : ''}`;
      }
    }
    return undefined;
  }
}

/**
 * Every path the swarm's tasks write, from their `output` (both sides of a `||`).
 *
 * @example
 * ```ts
 * outputDestinations(definition); // [{ task: 'fetch', reference: { kind: 'data', path: ['page'] }, on: 'success' }]
 * ```
 */
export function outputDestinations(definition: SwarmDefinition): OutputDestination[] {
  const destinations: OutputDestination[] = [];
  for (const [task, spec] of Object.entries(definition.tasks)) {
    if (spec.output === undefined) continue;
    const plan = parseOutputPath(typeof spec.output === 'string' ? spec.output : spec.output.path);
    for (const reference of plan.success) destinations.push({ task, reference, on: 'success' });
    for (const reference of plan.failure) destinations.push({ task, reference, on: 'failure' });
  }
  return destinations;
}

/**
 * The missing references that make the inputs unresolvable for good: `†a` when `a` is dead,
 * `†a || †b` when every side is, `†a && †b` when one side is. Empty while they may still resolve.
 */
function unresolvable(
  inputs: Record<string, string>,
  resolution: Extract<InputResolution, { ready: false }>,
  dead: (reference: string) => boolean,
): string[] {
  const found: string[] = [];
  for (const argument of resolution.arguments) {
    const text = inputs[argument.argument.split('.')[0] as string];
    if (text === undefined) continue;
    const missing = new Set(argument.missing);
    let expression: Expression | undefined;
    try {
      expression = parseExpression(text.trim());
    } catch {
      expression = undefined; // text with references inside: each one must resolve
    }
    const deadHere =
      expression === undefined
        ? argument.missing.filter(dead)
        : deadReferences(expression, (reference) => missing.has(reference) && dead(reference));
    for (const reference of deadHere) if (!found.includes(reference)) found.push(reference);
  }
  return found;
}

function deadReferences(expression: Expression, dead: (reference: string) => boolean): string[] {
  if (expression.type === 'reference') return dead(expression.text) ? [expression.text] : [];
  const parts = expression.operands.map((operand) => deadReferences(operand, dead));
  if (expression.type === 'or') return parts.every((part) => part.length > 0) ? parts.flat() : [];
  return parts.flat();
}

/**
 * The tasks that depend on `task` and read what it writes when it fails (the right side of its
 * `||` output): a failure of `task` releases them instead of skipping them.
 *
 * @example
 * ```ts
 * failureReaders(definition, 'fetch'); // ['report_error']
 * ```
 */
export function failureReaders(definition: SwarmDefinition, task: string): string[] {
  const destinations = outputDestinations(definition);
  return Object.entries(definition.tasks)
    .filter(([, spec]) => spec.depends_on.includes(task) && readsFailureOf(spec, task, destinations))
    .map(([name]) => name);
}

/** True when the task reads a path that `dependency` writes when it fails. */
function readsFailureOf(
  spec: TaskDefinition,
  dependency: string,
  destinations: readonly OutputDestination[],
): boolean {
  const failure = destinations.filter((entry) => entry.task === dependency && entry.on === 'failure');
  if (failure.length === 0) return false;
  return Object.values(spec.inputs).some((text) =>
    referencesIn(text).some((reference) =>
      failure.some(
        (entry) =>
          entry.reference.kind === reference.kind && pathsOverlap(entry.reference.path, reference.path),
      ),
    ),
  );
}

function referencesIn(text: string): Reference[] {
  try {
    return collect(parseExpression(text.trim()));
  } catch {
    return [];
  }
}

function collect(expression: Expression): Reference[] {
  if (expression.type === 'reference') return [expression.reference];
  return expression.operands.flatMap(collect);
}
