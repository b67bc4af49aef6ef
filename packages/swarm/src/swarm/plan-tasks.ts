// Pure: decides, for one superstep, which tasks run, wait or are skipped. Runs inside the
// workflow sandbox (no clocks, no I/O); the workflow applies the decisions.
import {
  type Expression,
  parseExpression,
  parseOutputPath,
  parseReference,
  type Reference,
} from '@wharf/context-resolver';
import type { MapItems } from '../contracts/data-plane-contracts.js';
import type { TaskStatus } from '../contracts/progress-contracts.js';
import { DEFAULT_MAX_ITEMS, type SwarmDefinition, type TaskDefinition } from '../contracts/swarm-schema.js';
import { isFinished, isOpen } from '../contracts/task-status.js';
import { pathsOverlap } from '../dsl/paths-overlap.js';
import { parseWhen } from '../dsl/when-condition.js';
import { evaluateWhen } from './evaluate-when.js';
import { expandMapLoop, type StoredListSource } from './expand-map-loop.js';
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
  /** A map loop over a stored list: its index once built (or why not); undefined before. */
  items?(task: string): MapItems | undefined;
}

/** Where a map loop over a stored list reads its items: the index, at the instance's position. */
export interface StoredItems {
  index: string;
  format: 'line' | 'json';
}

/** One decision of {@link planTasks}. */
export type TaskDecision =
  | { task: string; action: 'skip'; reason: string }
  | { task: string; action: 'wait'; waitingFor: string[] }
  /** Could run, but its `approval:` gate has not approved it yet. */
  | { task: string; action: 'approval' }
  /** Cannot run: its map loop's `over` is not a list. */
  | { task: string; action: 'fail'; reason: string }
  /** Could run once its map loop's stored list is indexed (by a worker: the items stay in the store). */
  | { task: string; action: 'index'; source: StoredListSource; maxItems: number }
  /**
   * Runs `total` instances with `inputs` (resolved once for the task). A map loop's instances
   * also get their `item` (of `items`, or read through `stored` by the worker) and `index`.
   */
  | {
      task: string;
      action: 'run';
      total: number;
      inputs: Record<string, unknown>;
      items?: readonly unknown[];
      stored?: StoredItems;
    };

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
  // A task's inputs resolve the same for all its instances (no message is written for one
  // instance alone), so they are resolved once per task, whatever the number of instances.
  const resolutions = new Map<string, InputResolution>();
  const resolveOnce = (task: string): InputResolution => {
    let cached = resolutions.get(task);
    if (cached === undefined) {
      cached = view.resolve(task, undefined);
      resolutions.set(task, cached);
    }
    return cached;
  };
  /**
   * A map loop's items (or the stored list they are read from); its `over` resolution while
   * unresolved; a reason when it is no list.
   */
  const overs = new Map<string, unknown[] | { stored: StoredListSource } | InputResolution | string>();
  const mapItems = (task: string): unknown[] | { stored: StoredListSource } | InputResolution | string => {
    let cached = overs.get(task);
    if (cached === undefined) {
      const loop = (definition.tasks[task] as TaskDefinition).loop;
      const resolution = loop?.type === 'map' ? view.evaluate(task, loop.over) : undefined;
      if (resolution === undefined) cached = [];
      else if (!resolution.ready) cached = resolution;
      else {
        const expansion = expandMapLoop(
          resolution.values.value,
          (loop?.type === 'map' ? loop.max_items : undefined) ?? DEFAULT_MAX_ITEMS,
        );
        cached = !expansion.ok ? expansion.reason : 'items' in expansion ? expansion.items : expansion;
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
    if (items !== undefined && !Array.isArray(items) && !('stored' in items)) {
      decisions.push({ task, action: 'wait', waitingFor: items.ready ? [] : items.missing });
      continue;
    }
    const resolution = resolveOnce(task);
    if (!resolution.ready) {
      decisions.push({ task, action: 'wait', waitingFor: [...new Set(resolution.missing)] });
      continue;
    }
    const inputs = resolution.values;
    let run: Extract<TaskDecision, { action: 'run' }>;
    if (items === undefined) run = { task, action: 'run', total: spec.loop?.count ?? 1, inputs };
    else if (Array.isArray(items)) run = { task, action: 'run', total: items.length, inputs, items };
    else {
      // A stored list is indexed first: its gate, if any, is asked with the number of items.
      const indexed = view.items?.(task);
      const { source, status } = items.stored;
      if (indexed === undefined || indexed.source !== source || indexed.status !== status) {
        decisions.push({
          task,
          action: 'index',
          source: items.stored,
          maxItems: (spec.loop?.type === 'map' ? spec.loop.max_items : undefined) ?? DEFAULT_MAX_ITEMS,
        });
        continue;
      }
      if ('error' in indexed) {
        decisions.push({ task, action: 'fail', reason: indexed.error });
        continue;
      }
      run = {
        task,
        action: 'run',
        total: indexed.count,
        inputs,
        stored: { index: indexed.index, format: indexed.format },
      };
    }
    if (!view.approved(task, run.total)) decisions.push({ task, action: 'approval' });
    else decisions.push(run);
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
      if (typeof items !== 'string' && !Array.isArray(items) && !('stored' in items) && !items.ready) {
        const dead = unresolvable(
          { over: spec.loop.over },
          { ...items, arguments: [{ argument: 'over', missing: items.missing }] },
          isDead,
        );
        if (dead.length > 0) return `loop.over ${dead.join(', ')} can no longer be written`;
      }
    }
    const resolution = resolveOnce(task);
    if (!resolution.ready) {
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
