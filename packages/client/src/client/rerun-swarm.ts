import type { Client } from '@temporalio/client';
import type { DataPlaneIdentity, RerunOrigin, SwarmDefinition } from '@wharf/swarm';
import { parseSwarm, planRerun, type RerunPlan, reusePoolTimes, WharfOrchestratorError } from '@wharf/swarm';
import { readFinishedSwarmRun } from './read-swarm-run.js';
import type { StartSwarmOptions, SwarmHandle } from './start-swarm-options.js';

/** What {@link rerunSwarm} uses of a `WharfClient`. */
export interface RerunClient {
  readonly client: Client;
  readonly tools: readonly string[] | undefined;
  readonly dataPlane: DataPlaneIdentity | undefined;
  startSwarm(
    definition: SwarmDefinition | string,
    input: Record<string, unknown>,
    options: StartSwarmOptions,
  ): Promise<SwarmHandle>;
}

/** Options of `WharfClient.rerun`. */
export interface RerunOptions extends Omit<StartSwarmOptions, 'rerun' | 'dataPlane'> {
  /**
   * The task to run again: it and every task that depends on it (transitively) run again. Left
   * out, only what changed runs again: the tasks reading a changed `inputs` value (or changed in
   * `definition`), and what depends on them; a re-run in which nothing would run is refused.
   */
  from?: string;
  /** `†input.*` values replacing the run's (the others keep the values the run ended with). */
  inputs?: Record<string, unknown>;
  /** An edited definition (YAML or parsed) to run instead of the run's own. */
  definition?: SwarmDefinition | string;
}

/** A started re-run, and what it reuses and runs again. */
export interface RerunHandle extends SwarmHandle {
  /** The run it re-runs. */
  rerunOf: string;
  plan: RerunPlan;
  /** The definition the re-run runs: the run's own, or the edited one. */
  definition: SwarmDefinition;
}

/**
 * Starts a re-run of a finished swarm run (see `WharfClient.rerun`): reads the run from
 * Temporal alone (its history and result: no worker needed), decides with `planRerun` what runs
 * again, and starts the same definition (or `options.definition`) with the run's options, its
 * `†input` values (with `options.inputs` over them) and the reused results. The re-run keeps the
 * run's data plane, where the reused outputs are: a client of another data plane is refused.
 *
 * @example
 * ```ts
 * const { workflowId, plan } = await rerunSwarm(wharf, 'etl-2026', { from: 'report' });
 * ```
 */
export async function rerunSwarm(
  wharf: RerunClient,
  workflowId: string,
  options: RerunOptions,
): Promise<RerunHandle> {
  const previous = await readFinishedSwarmRun(wharf.client, workflowId);
  const { from, inputs: overrides, definition: edited, ...startOptions } = options;
  const definition =
    edited === undefined
      ? previous.input.definition
      : typeof edited === 'string'
        ? parseSwarm(edited, wharf.tools === undefined ? {} : { tools: wharf.tools })
        : edited;
  const inputs = { ...previous.inputs, ...overrides };
  const plan = planRerun(
    {
      definition: previous.input.definition,
      inputs: previous.inputs,
      tasks: previous.result.tasks,
      results: previous.results,
    },
    { definition, inputs, from },
  );
  const plane = previous.input.dataPlane;
  if (plane !== undefined && wharf.dataPlane !== undefined && plane.id !== wharf.dataPlane.id)
    throw new WharfOrchestratorError(
      'INVALID_REQUEST',
      `${workflowId} stored its outputs in data plane ${plane.id} (${plane.description}), but this client is on ${wharf.dataPlane.id} (${wharf.dataPlane.description}): re-run it from a client of the run's data plane`,
    );
  const { input: started } = previous;
  const handle = await wharf.startSwarm(definition, inputs, {
    ...(started.ownerId === undefined ? {} : { ownerId: started.ownerId }),
    ...(started.workdir === undefined ? {} : { workdir: started.workdir }),
    ...(started.maxConcurrentTasks === undefined ? {} : { maxConcurrentTasks: started.maxConcurrentTasks }),
    ...(started.historyEventLimit === undefined ? {} : { historyEventLimit: started.historyEventLimit }),
    ...(started.waitForInputsMs === undefined ? {} : { waitForInputsMs: started.waitForInputsMs }),
    ...(started.contextPoolCap === undefined ? {} : { contextPoolCap: started.contextPoolCap }),
    ...(started.heartbeatTimeoutMs === undefined ? {} : { heartbeatTimeoutMs: started.heartbeatTimeoutMs }),
    ...startOptions,
    ...(plane === undefined ? {} : { dataPlane: plane }),
    rerun: {
      of: {
        workflowId,
        ...(from === undefined ? {} : { from }),
        readsFrom: readsFrom(workflowId, started.rerunOf),
      },
      // Reused outputs enter the context pool at the times they did in the run, moved to now.
      reuse: reusePoolTimes(plan.reuse, previous.result.tasks, Date.now()),
    },
  });
  return { ...handle, rerunOf: workflowId, plan, definition };
}

/** The run re-run and the runs it reused outputs from in turn (most recent first, each once). */
function readsFrom(workflowId: string, origin: RerunOrigin | undefined): string[] {
  return [...new Set([workflowId, ...(origin?.readsFrom ?? [])])];
}
