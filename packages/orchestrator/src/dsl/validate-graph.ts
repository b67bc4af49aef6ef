import type { SwarmIssue } from './swarm-definition-error.js';
import type { SwarmDefinition } from './swarm-schema.js';
import { validateReferences } from './validate-references.js';

/**
 * Checks what the schema cannot: every `depends_on` names a task, every agent task and
 * the supervisor name a defined agent, context include/exclude lists name tasks, the
 * dependency graph has no cycle, and every `†` input can have been written before its task
 * runs (see {@link validateReferences}). Returns the issues found (empty when sound).
 *
 * @example
 * ```ts
 * const issues = validateGraph(definition);
 * ```
 */
export function validateGraph(definition: SwarmDefinition): SwarmIssue[] {
  const issues: SwarmIssue[] = [];
  const tasks = definition.tasks;
  const known = new Set(Object.keys(tasks));
  for (const [taskName, task] of Object.entries(tasks)) {
    task.depends_on.forEach((dependency, index) => {
      if (dependency === taskName) {
        issues.push({
          path: `tasks.${taskName}.depends_on[${index}]`,
          message: 'a task cannot depend on itself',
        });
      } else if (!known.has(dependency)) {
        issues.push({
          path: `tasks.${taskName}.depends_on[${index}]`,
          message: `unknown task "${dependency}" (known: ${[...known].join(', ')})`,
        });
      }
    });
    if (task.agent !== undefined && definition.agents[task.agent] === undefined) {
      issues.push({ path: `tasks.${taskName}.agent`, message: `unknown agent "${task.agent}"` });
    }
    for (const list of ['include_tasks', 'exclude_tasks'] as const) {
      task.context?.[list]?.forEach((other, index) => {
        if (!known.has(other)) {
          issues.push({
            path: `tasks.${taskName}.context.${list}[${index}]`,
            message: `unknown task "${other}"`,
          });
        }
      });
    }
  }
  if (definition.supervisor !== undefined && definition.agents[definition.supervisor.agent] === undefined) {
    issues.push({ path: 'supervisor.agent', message: `unknown agent "${definition.supervisor.agent}"` });
  }
  const cycle = findCycle(tasks);
  if (cycle !== undefined) {
    issues.push({
      path: `tasks.${cycle[0]}.depends_on`,
      message: `dependency cycle: ${cycle.join(' → ')}`,
    });
    return issues;
  }
  return [...issues, ...validateReferences(definition)];
}

/** Returns one dependency cycle as a closed list of task names (`a → b → a`), if any. */
export function findCycle(
  tasks: Readonly<Record<string, { depends_on: readonly string[] }>>,
): string[] | undefined {
  const state = new Map<string, 'visiting' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): string[] | undefined => {
    const seen = state.get(node);
    if (seen === 'done') return undefined;
    if (seen === 'visiting') return [...stack.slice(stack.indexOf(node)), node];
    state.set(node, 'visiting');
    stack.push(node);
    for (const next of tasks[node]?.depends_on ?? []) {
      if (next === node || tasks[next] === undefined) continue;
      const cycle = visit(next);
      if (cycle !== undefined) return cycle;
    }
    stack.pop();
    state.set(node, 'done');
    return undefined;
  };
  for (const node of Object.keys(tasks)) {
    const cycle = visit(node);
    if (cycle !== undefined) return cycle;
  }
  return undefined;
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
    if (out.has(next) || tasks[next] === undefined) continue;
    out.add(next);
    pending.push(...(tasks[next]?.depends_on ?? []));
  }
  return out;
}
