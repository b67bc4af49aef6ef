import type { GraphDefinition } from './graph-definition.js';
import { nameHint } from './suggest-names.js';
import type { SwarmIssue } from './swarm-definition-error.js';
import { validateReferences } from './validate-references.js';
import { validateStoredReads } from './validate-stored-reads.js';

/** A cycle longer than this is shown by its first and last few tasks. */
const CYCLE_SHOWN = 10;

/**
 * Checks what the schema cannot: every `depends_on` names a task, every agent task and
 * the supervisor name a defined agent, context include/exclude lists name tasks, the
 * dependency graph has no cycle, and every `†` input can have been written before its task
 * runs (see {@link validateReferences}). Returns the issues found (empty when sound).
 * Linear in the size of the definition; an unknown name is explained by the nearest defined
 * names, never by the whole list.
 *
 * @example
 * ```ts
 * const issues = validateGraph(definition);
 * ```
 */
export function validateGraph(definition: GraphDefinition): SwarmIssue[] {
  const issues: SwarmIssue[] = [];
  const tasks = definition.tasks;
  const taskHint = nameHint(Object.keys(tasks));
  const agents = definition.agents;
  const agentHint = nameHint(agents === undefined ? [] : Object.keys(agents));
  const unknownAgent = (agent: string) => agents !== undefined && !Object.hasOwn(agents, agent);
  for (const [taskName, task] of Object.entries(tasks)) {
    task.depends_on.forEach((dependency, index) => {
      if (dependency === taskName) {
        issues.push({
          path: `tasks.${taskName}.depends_on[${index}]`,
          message: 'a task cannot depend on itself',
        });
      } else if (!Object.hasOwn(tasks, dependency)) {
        issues.push({
          path: `tasks.${taskName}.depends_on[${index}]`,
          message: `unknown task "${dependency}"${taskHint(dependency)}`,
        });
      }
    });
    if (task.agent !== undefined && unknownAgent(task.agent)) {
      issues.push({
        path: `tasks.${taskName}.agent`,
        message: `unknown agent "${task.agent}"${agentHint(task.agent)}`,
      });
    }
    for (const list of ['include_tasks', 'exclude_tasks'] as const) {
      task.context?.[list]?.forEach((other, index) => {
        if (!Object.hasOwn(tasks, other)) {
          issues.push({
            path: `tasks.${taskName}.context.${list}[${index}]`,
            message: `unknown task "${other}"${taskHint(other)}`,
          });
        }
      });
    }
  }
  const supervisor = definition.supervisor;
  if (supervisor !== undefined && unknownAgent(supervisor.agent)) {
    issues.push({
      path: 'supervisor.agent',
      message: `unknown agent "${supervisor.agent}"${agentHint(supervisor.agent)}`,
    });
  }
  const sorted = dependencyOrder(tasks);
  if ('cycle' in sorted) {
    issues.push({ path: `tasks.${sorted.cycle[0]}.depends_on`, message: describeCycle(sorted.cycle) });
    return issues;
  }
  return [...issues, ...validateReferences(definition, sorted.order), ...validateStoredReads(definition)];
}

/** Returns one dependency cycle as a closed list of task names (`a → b → a`), if any. */
export function findCycle(
  tasks: Readonly<Record<string, { depends_on: readonly string[] }>>,
): string[] | undefined {
  const sorted = dependencyOrder(tasks);
  return 'cycle' in sorted ? sorted.cycle : undefined;
}

/**
 * Every task, dependencies before their dependents, or one cycle that prevents such an order.
 * Self-dependencies and unknown names are skipped (they are reported on their own).
 * Iterative depth-first search: no recursion, so any chain length is fine.
 *
 * @example
 * ```ts
 * dependencyOrder({ a: { depends_on: ['b'] }, b: { depends_on: [] } }); // { order: ['b', 'a'] }
 * ```
 */
export function dependencyOrder(
  tasks: Readonly<Record<string, { depends_on: readonly string[] }>>,
): { order: string[] } | { cycle: string[] } {
  const state = new Map<string, 'visiting' | 'done'>();
  const order: string[] = [];
  for (const root of Object.keys(tasks)) {
    if (state.has(root)) continue;
    state.set(root, 'visiting');
    const path: string[] = [root];
    const next: number[] = [0];
    while (path.length > 0) {
      const top = path.length - 1;
      const node = path[top] as string;
      const dependencies = (tasks[node] as { depends_on: readonly string[] }).depends_on;
      const index = next[top] as number;
      if (index >= dependencies.length) {
        state.set(node, 'done');
        order.push(node);
        path.pop();
        next.pop();
        continue;
      }
      next[top] = index + 1;
      const dependency = dependencies[index] as string;
      if (dependency === node || !Object.hasOwn(tasks, dependency)) continue;
      const seen = state.get(dependency);
      if (seen === 'done') continue;
      if (seen === 'visiting') return { cycle: [...path.slice(path.indexOf(dependency)), dependency] };
      state.set(dependency, 'visiting');
      path.push(dependency);
      next.push(0);
    }
  }
  return { order };
}

function describeCycle(cycle: readonly string[]): string {
  const size = cycle.length - 1;
  if (cycle.length <= CYCLE_SHOWN + 1) return `dependency cycle: ${cycle.join(' → ')}`;
  const half = CYCLE_SHOWN / 2;
  return `dependency cycle of ${size} tasks: ${[...cycle.slice(0, half), '…', ...cycle.slice(-half)].join(' → ')}`;
}

/**
 * Every task that must finish before `taskName` can start: its dependencies and theirs.
 *
 * @example
 * ```ts
 * ancestorsOf(definition.tasks, 'report'); // Set { 'fetch', 'process' }
 * ```
 */
export function ancestorsOf(
  tasks: Readonly<Record<string, { depends_on: readonly string[] }>>,
  taskName: string,
): Set<string> {
  const out = new Set<string>();
  const pending = [...(tasks[taskName]?.depends_on ?? [])];
  while (pending.length > 0) {
    const next = pending.pop() as string;
    if (out.has(next) || !Object.hasOwn(tasks, next)) continue;
    out.add(next);
    for (const dependency of tasks[next]?.depends_on ?? []) pending.push(dependency);
  }
  return out;
}
