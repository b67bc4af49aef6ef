import type { SwarmDefinition } from '@wharf/swarm';
import { childSwarm, nameHint, spawnWorkerToolName } from '@wharf/swarm';
import { ModelError } from './model-error.js';
import { type ModelOverrides, modelFor } from './model-overrides.js';

/**
 * A copy of `definition` whose agents run on the overridden models (see `modelFor`), so the
 * choice travels with the swarm to whichever worker runs it. When `supervisor=…` gives the
 * supervisor step a model its agent does not otherwise run on, and that agent also runs tasks
 * (or may be spawned), the supervisor gets a copy of the agent (named `supervisor`, or
 * `supervisor-2`, … when taken). A name that is neither an agent of the swarm nor `supervisor`
 * (with a supervisor step) is an `INVALID_MODEL_OVERRIDE` {@link ModelError} naming `source`
 * and the near names. The swarms its `swarm:` tasks run get the default model and the named
 * ones of their own agents.
 *
 * @example
 * ```ts
 * const definition = applyModelOverrides(parseSwarm(text), parseModelOverrides(['echo'], '--model'), '--model');
 * ```
 */
export function applyModelOverrides(
  definition: SwarmDefinition,
  overrides: ModelOverrides,
  source: string,
): SwarmDefinition {
  const names = Object.keys(definition.agents);
  const hint = nameHint(definition.supervisor === undefined ? names : [...names, 'supervisor']);
  for (const name of Object.keys(overrides.agents)) {
    const known = names.includes(name) || (name === 'supervisor' && definition.supervisor !== undefined);
    if (!known) {
      throw new ModelError(
        'INVALID_MODEL_OVERRIDE',
        `${source}: swarm ${definition.name} has no agent "${name}"${hint(name)}`,
        { variable: source },
      );
    }
  }
  const agents: SwarmDefinition['agents'] = {};
  for (const [name, agent] of Object.entries(definition.agents)) {
    agents[name] = { ...agent, model: modelFor(overrides, { model: agent.model, agent: name }) };
  }
  const result: SwarmDefinition = {
    ...definition,
    agents,
    tasks: nestedWithModels(definition, overrides, source),
  };
  const supervisor = definition.supervisor;
  const used = supervisor === undefined ? undefined : agents[supervisor.agent];
  if (supervisor === undefined || used === undefined) return result;
  const model = modelFor(overrides, {
    model: definition.agents[supervisor.agent]?.model ?? used.model,
    agent: supervisor.agent,
    supervisor: true,
  });
  if (model === used.model) return result;
  if (!sharedAgent(definition, supervisor.agent)) {
    agents[supervisor.agent] = { ...used, model };
    return result;
  }
  let copy = 'supervisor';
  for (let index = 2; Object.hasOwn(agents, copy); index++) copy = `supervisor-${index}`;
  agents[copy] = { ...used, model };
  return { ...result, supervisor: { ...supervisor, agent: copy } };
}

/**
 * The tasks, each `swarm:` task's child definition with the overrides applied too: the default
 * model, and the named ones whose agent the child has (a child need not have the parent's agents).
 */
function nestedWithModels(
  definition: SwarmDefinition,
  overrides: ModelOverrides,
  source: string,
): SwarmDefinition['tasks'] {
  const tasks: SwarmDefinition['tasks'] = { ...definition.tasks };
  for (const [name, task] of Object.entries(definition.tasks)) {
    const child = childSwarm(task);
    if (child === undefined) continue;
    const own = {
      ...overrides,
      agents: Object.fromEntries(
        Object.entries(overrides.agents).filter(
          ([agent]) =>
            Object.hasOwn(child.agents, agent) || (agent === 'supervisor' && child.supervisor !== undefined),
        ),
      ),
    };
    tasks[name] = { ...task, swarm_definition: applyModelOverrides(child, own, source) };
  }
  return tasks;
}

/** Whether an agent runs tasks, or may be started by an agent's `spawn_worker`. */
function sharedAgent(definition: SwarmDefinition, name: string): boolean {
  return (
    Object.values(definition.tasks).some((task) => task.agent === name) ||
    Object.values(definition.agents).some((agent) => agent.tools.includes(spawnWorkerToolName))
  );
}
