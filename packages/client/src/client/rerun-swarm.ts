import type { Client } from '@temporalio/client';
import type { DataPlaneIdentity, NestedRerun, RerunOrigin, SwarmDefinition } from '@wharf/swarm';
import {
  childSwarm,
  nestedTask,
  parseSwarm,
  planRerun,
  type RerunPlan,
  reusePoolTimes,
  WharfOrchestratorError,
} from '@wharf/swarm';
import { type FinishedSwarmRun, readFinishedSwarmRun } from './read-swarm-run.js';
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
  const { plan, nested } = await planFrom(wharf.client, previous, definition, inputs, from);
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
      ...(nested === undefined ? {} : { nested }),
    },
  });
  return { ...handle, rerunOf: workflowId, plan, definition };
}

/**
 * The plan of a re-run of `previous` from `from`. A `from` of `<swarm task>.<inner task>` re-runs
 * that `swarm:` task (and what depends on it) with its child run a re-run of the earlier child
 * run (`<run>/swarm/<swarm task>`, read from Temporal as the run is) from `<inner task>`, planned
 * the same way against the earlier child's definition and `†input` values (the values the task
 * passes are resolved only when it runs). The plan lists the child's tasks as
 * `<swarm task>.<inner task>`: reused ones in `reused`, the ones that run again in `rerun`
 * after the `swarm:` task; `reuse` holds this run's own.
 */
async function planFrom(
  client: Client,
  previous: FinishedSwarmRun,
  definition: SwarmDefinition,
  inputs: Record<string, unknown>,
  from: string | undefined,
): Promise<{ plan: RerunPlan; nested?: Record<string, NestedRerun> }> {
  const inner = from === undefined ? undefined : nestedTask(previous.workflowId, from);
  const head = inner === undefined || from === undefined ? from : from.slice(0, from.indexOf('.'));
  const plan = planRerun(
    {
      definition: previous.input.definition,
      inputs: previous.inputs,
      tasks: previous.result.tasks,
      results: previous.results,
    },
    { definition, inputs, from: head },
  );
  if (inner === undefined || head === undefined) return { plan };
  const spec = definition.tasks[head];
  const child = spec === undefined ? undefined : childSwarm(spec);
  if (child === undefined)
    throw new WharfOrchestratorError(
      'INVALID_REQUEST',
      `cannot re-run from "${from}": ${head} is not a swarm: task with its swarm loaded (start the re-run from its file, or name one of the tasks: ${Object.keys(definition.tasks).join(', ')})`,
    );
  const earlier = await readFinishedSwarmRun(client, inner.workflowId).catch((error: unknown) => {
    throw new WharfOrchestratorError(
      'INVALID_REQUEST',
      `cannot re-run from "${from}": ${head} left no finished swarm run ${inner.workflowId} to re-run (${error instanceof Error ? error.message : String(error)})`,
      { cause: error },
    );
  });
  const nested = await planFrom(client, earlier, child, earlier.inputs, inner.task);
  const named = (task: string) => `${head}.${task}`;
  return {
    plan: {
      reuse: plan.reuse,
      reused: [...plan.reused, ...nested.plan.reused.map(named)],
      rerun: plan.rerun.flatMap((entry) =>
        entry.task === head
          ? [
              { task: head, reason: `its swarm runs again from ${inner.task}` },
              ...nested.plan.rerun.map((task) => ({ ...task, task: named(task.task) })),
            ]
          : [entry],
      ),
    },
    nested: {
      [head]: {
        rerunOf: {
          workflowId: earlier.workflowId,
          from: inner.task,
          readsFrom: readsFrom(earlier.workflowId, earlier.input.rerunOf),
        },
        reuse: reusePoolTimes(nested.plan.reuse, earlier.result.tasks, Date.now()),
        ...(nested.nested === undefined ? {} : { nested: nested.nested }),
      },
    },
  };
}

/** The run re-run and the runs it reused outputs from in turn (most recent first, each once). */
function readsFrom(workflowId: string, origin: RerunOrigin | undefined): string[] {
  return [...new Set([workflowId, ...(origin?.readsFrom ?? [])])];
}
