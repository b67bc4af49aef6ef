import type { SwarmDefinition } from '@wharf/swarm';
import { childSwarm, spawnWorkerToolName } from '@wharf/swarm';
import { ModelError } from './model-error.js';
import type { ModelRegistry } from './model-registry.js';

/** One agent whose model cannot be used here, and why. */
export interface ModelProblem {
  /** `agents.<name>.model` (`tasks.<task>.swarm(<file>).agents.<name>.model` in a nested swarm). */
  path: string;
  agent: string;
  model: string;
  error: ModelError;
}

/**
 * Resolves the model of every agent a swarm can run (its tasks' agents, its supervisor's, and
 * every agent when one may `spawn_worker`) with `models`, contacting no provider, and lists the
 * ones that fail: unknown provider, malformed id, a key missing from the environment (named),
 * a scripted model's bad file. Agents nothing runs are not checked; the swarms `swarm:` tasks run are.
 *
 * @example
 * ```ts
 * for (const problem of checkSwarmModels(definition, createModelRegistry())) console.error(`${problem.path}: ${problem.error.message}`);
 * ```
 */
export function checkSwarmModels(definition: SwarmDefinition, models: ModelRegistry): ModelProblem[] {
  const used = new Set<string>();
  for (const task of Object.values(definition.tasks)) if (task.agent !== undefined) used.add(task.agent);
  if (definition.supervisor !== undefined) used.add(definition.supervisor.agent);
  const spawns = [...used].some((name) => definition.agents[name]?.tools.includes(spawnWorkerToolName));
  if (spawns) for (const name of Object.keys(definition.agents)) used.add(name);
  const problems: ModelProblem[] = [];
  for (const name of used) {
    const agent = definition.agents[name];
    if (agent === undefined) continue;
    const model = models.modelFor?.({ model: agent.model, agent: name }) ?? agent.model;
    try {
      models.resolve(model);
    } catch (error) {
      if (!ModelError.isInstance(error)) throw error;
      problems.push({ path: `agents.${name}.model`, agent: name, model, error });
    }
  }
  // The swarms its `swarm:` tasks run are checked too, their paths under the task's.
  for (const [name, task] of Object.entries(definition.tasks)) {
    const child = childSwarm(task);
    if (child === undefined) continue;
    for (const problem of checkSwarmModels(child, models))
      problems.push({ ...problem, path: `tasks.${name}.swarm(${task.swarm}).${problem.path}` });
  }
  return problems;
}
