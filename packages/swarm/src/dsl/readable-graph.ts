import { isReferenceInput } from '../contracts/swarm-schema.js';
import type { GraphDefinition, GraphTask } from './graph-definition.js';

/**
 * The part of a definition that failed the schema which the graph checks can still read:
 * every task name under `tasks`, and of each task only the fields of the right shape
 * (`depends_on` names, `agent`, context lists, string `inputs`, `when`, `loop.over`, `output`). Lets one report
 * carry schema problems and unknown names, cycles or unsatisfiable `†` inputs together.
 * Undefined when `tasks` is not a mapping.
 *
 * @example
 * ```ts
 * readableGraph({ tasks: { a: { depends_on: ['b'], loop: 'bad' } } });
 * // { tasks: { a: { depends_on: ['b'], ... } }, agents: undefined, supervisor: undefined }
 * ```
 */
export function readableGraph(value: unknown): GraphDefinition | undefined {
  if (!isRecord(value) || !isRecord(value.tasks)) return undefined;
  const tasks: Record<string, GraphTask> = {};
  for (const [name, raw] of Object.entries(value.tasks)) {
    const spec = isRecord(raw) ? raw : {};
    const task: GraphTask = { depends_on: strings(spec.depends_on) ?? [] };
    if (typeof spec.agent === 'string') task.agent = spec.agent;
    if (isRecord(spec.context)) {
      const include = strings(spec.context.include_tasks);
      const exclude = strings(spec.context.exclude_tasks);
      task.context = {
        ...(include === undefined ? {} : { include_tasks: include }),
        ...(exclude === undefined ? {} : { exclude_tasks: exclude }),
      };
    }
    if (isRecord(spec.inputs)) {
      task.inputs = Object.fromEntries(
        Object.entries(spec.inputs).filter(
          (entry): entry is [string, string] =>
            typeof entry[1] === 'string' && (spec.swarm === undefined || isReferenceInput(entry[1])),
        ),
      );
    }
    if (typeof spec.when === 'string') task.when = spec.when;
    if (isRecord(spec.loop)) {
      const { type, over, count } = spec.loop;
      task.loop = {
        ...(typeof type === 'string' ? { type } : {}),
        ...(typeof over === 'string' ? { over } : {}),
        ...(typeof count === 'number' ? { count } : {}),
      };
    }
    if (typeof spec.output === 'string') task.output = spec.output;
    else if (isRecord(spec.output) && typeof spec.output.path === 'string')
      task.output = { path: spec.output.path };
    Object.defineProperty(tasks, name, { value: task, enumerable: true, writable: true, configurable: true });
  }
  const agents = isRecord(value.agents) ? value.agents : value.agents === undefined ? {} : undefined;
  const supervisor =
    isRecord(value.supervisor) && typeof value.supervisor.agent === 'string'
      ? { agent: value.supervisor.agent }
      : undefined;
  return { tasks, agents, supervisor };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The array's strings when it is an array (other entries left out), else undefined. */
function strings(value: unknown): string[] | undefined {
  return Array.isArray(value)
    ? value.filter((entry): entry is string => typeof entry === 'string')
    : undefined;
}
