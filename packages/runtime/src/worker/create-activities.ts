import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { Runtime } from '@temporalio/worker';
import type { ArtifactStore } from '@wharf/evidence';
import { OutputNotFoundError, type OutputStore } from '@wharf/output-store';
import {
  type ProcessGroupRegistry,
  type ProcessSpawner,
  SpawnServer,
  StdioLimitsError,
  type Summarizer,
} from '@wharf/stdio-limits';
import type {
  DataPlaneIdentity,
  SubagentInput,
  SubagentRefInput,
  SubagentResult,
  WharfActivities,
} from '@wharf/swarm';
import {
  contextMetrics,
  planContext,
  pruneContext,
  WharfOrchestratorError,
  wharfFailureTypes,
} from '@wharf/swarm';
import type { ToolSet } from 'ai';
import { type SubagentIds, subagentIds } from '../activities/activity-identity.js';
import { childEnvironment } from '../activities/child-env.js';
import { guardDataPlane } from '../activities/data-plane-guard.js';
import { MapItemReads } from '../activities/map-item-reads.js';
import { runScript } from '../activities/run-script.js';
import { indexMapItems, writeResultsPart } from '../activities/stored-lists.js';
import { SubagentContexts } from '../activities/subagent-contexts.js';
import { SubagentDefinitions, storeSubagentDefinition } from '../activities/subagent-definition.js';
import { withoutOmitted } from '../activities/subagent-result.js';
import { WorkerSandbox } from '../activities/worker-sandbox.js';
import { createAgentActivities } from '../agent/agent-activities.js';
import { modelCallFailure } from '../models/model-call-failure.js';
import { createModelRegistry, type ModelRegistry } from '../models/model-registry.js';
import type { WharfTracing } from '../tracing/wharf-tracing.js';

/** What the activities need: stores, models, and where to spill process output. */
export interface ActivityDependencies {
  /** Bodies of every output (EMIT). */
  store: OutputStore;
  /** Workers' tool calls and results (evidence). */
  artifacts: ArtifactStore;
  /** Model ids → AI SDK models. Default: `createModelRegistry()` (environment keys). */
  models?: ModelRegistry;
  /** Spill files of running scripts. Default `<tmp>/wharf-work`. */
  workDir?: string;
  /**
   * The worker's environment, which scripts and the agents' `shell` tool get without the
   * credentials Wharf uses (see `childEnvironment`; `WHARF_PASS_ENV` names exceptions).
   * Default `process.env`.
   */
  env?: NodeJS.ProcessEnv;
  /** Extra environment per spawn, e.g. an intake URL and a per-spawn token. */
  spawnEnv?: (ids: SubagentIds, input: SubagentInput) => Record<string, string>;
  /**
   * Records the process group of every running script, so that a worker restarted after a
   * crash ends the scripts its predecessor left behind (`processGroups.reap()` at start).
   */
  processGroups?: ProcessGroupRegistry;
  /**
   * What starts scripts and the `shell` tool's commands. Default: a `SpawnServer` of the
   * activities, a small helper process that forks for the worker (forking a worker of several
   * hundred MiB costs its event loop about 10 ms a process; the helper, well under one).
   * `directSpawner` starts them from the worker itself.
   */
  spawner?: ProcessSpawner;
  /**
   * Told when the default spawner's helper dies, with what became of the scripts it ran (ended,
   * and retried by Temporal as after a worker crash). Default: a warning in the worker's log
   * (Temporal's runtime logger, which `wharf run` and the worker app set).
   */
  onSpawnWarning?: (message: string) => void;
  /**
   * Confines scripts and the `shell` tool's commands (see {@link WorkerSandbox}). Default:
   * `WorkerSandbox.create` with the options of `WHARF_SANDBOX*` in `env`, hiding `workDir`;
   * `false` runs them unconfined.
   */
  sandbox?: WorkerSandbox | false;
  /**
   * Tools agents may select by name in `agents.<name>.tools`, besides the built-ins
   * (`shell`, `read_file`, `write_file`, `http_request`): AI SDK `tool()` objects, or the
   * tools of MCP servers (`await mcpClient.tools()`). A worker tool named like a built-in wins.
   */
  tools?: ToolSet;
  /**
   * Summarizes a script's stdout when its limits say `truncation_strategy: summary` and it went
   * over `max_stdout_bytes` (e.g. `modelSummarizer(model)`). Without one the summary output
   * says no summarizer is configured and keeps the first and last bytes.
   */
  summarizer?: Summarizer;
  /**
   * This worker's data plane (where `store` and its bodies are; `openDataDir(…).dataPlane`).
   * An activity whose input names another one is refused, non-retryably (`WharfWrongDataPlane`).
   */
  dataPlane?: DataPlaneIdentity;
  /** OpenTelemetry tracing of model calls and tool calls (`tracingFromEnv()`); default off. */
  tracing?: WharfTracing;
}

/**
 * The activity implementations with their dependencies injected: `runSubagent` (a script
 * task), the steps of an agent task or of the supervisor (`agentStart`, `agentModelStep`,
 * `agentToolCall`, `agentSpawnRequest`, `agentFinish`), `indexItems` (a map loop's stored
 * list), and the local activities: the context pool's and `writeManifestPart` (a loop's stored
 * results). Wharf errors that retrying cannot fix (bad definitions, unknown models, missing
 * keys, forbidden reads, another data plane's work) and requests a provider refused (401, 400)
 * fail without retry; storage and process-start failures, and a provider's 429, 5xx or dropped
 * connection, are retried by the workflow's bounded policy (after the provider's `Retry-After`).
 *
 * @example
 * ```ts
 * const activities = createActivities({ store, artifacts });
 * await Worker.create({ connection, taskQueue, workflowsPath, activities });
 * ```
 */
export function createActivities(dependencies: ActivityDependencies): WharfActivities {
  const models = dependencies.models ?? createModelRegistry();
  const workDir = dependencies.workDir ?? join(tmpdir(), 'wharf-work');
  // Scripts' spilled output is handed to the artifact store from the work directory.
  dependencies.artifacts.addSpoolDirectory?.(workDir);
  // Every process started for a swarm gets this: no data-plane, Temporal or model credentials.
  const env = childEnvironment({ base: dependencies.env ?? process.env });
  const spawner =
    dependencies.spawner ??
    new SpawnServer({
      onWarning:
        dependencies.onSpawnWarning ??
        ((message) => Runtime.instance().logger.warn(message, { sdkComponent: 'wharf-spawn-server' })),
    });
  const sandbox =
    dependencies.sandbox === false
      ? undefined
      : (dependencies.sandbox ??
        WorkerSandbox.create({
          ...WorkerSandbox.optionsFromEnv(dependencies.env ?? process.env),
          hidden: [workDir],
        }));
  // A map's instances share their context: rendered once per worker, not once per instance.
  const contexts = new SubagentContexts(dependencies.store);
  // And the bodies they read their item from: read whole once per worker, not once per instance.
  const mapItems = new MapItemReads(dependencies.store);
  const agent = createAgentActivities({
    store: dependencies.store,
    artifacts: dependencies.artifacts,
    models,
    tools: dependencies.tools ?? {},
    workDir,
    env,
    spawner,
    contexts,
    mapItems,
    ...(sandbox === undefined ? {} : { sandbox }),
    ...(dependencies.processGroups === undefined ? {} : { processGroups: dependencies.processGroups }),
    ...(dependencies.tracing === undefined ? {} : { tracing: dependencies.tracing }),
  });
  // Script tasks' stored definitions, read once per worker.
  const definitions = new SubagentDefinitions(dependencies.store);
  const activities: WharfActivities = {
    agentStart: (input) => classify(() => agent.agentStart(input)),
    agentModelStep: (input) => classify(() => agent.agentModelStep(input)),
    agentToolCall: (input) => classify(() => agent.agentToolCall(input)),
    agentSpawnRequest: (input) => classify(() => agent.agentSpawnRequest(input)),
    agentFinish: (input) => classify(() => agent.agentFinish(input)),
    async runSubagent(called: SubagentInput | SubagentRefInput): Promise<SubagentResult> {
      const info = Context.current().info;
      return classify(async () => {
        const input = await definitions.resolve(called);
        const ids = subagentIds(input, {
          workflowId: info.workflowExecution?.workflowId ?? 'standalone',
          runId: info.workflowExecution?.runId ?? info.activityId,
          activityId: info.activityId,
        });
        const result = await runScript(input, ids, {
          store: dependencies.store,
          artifacts: dependencies.artifacts,
          workDir,
          env,
          spawner,
          contexts,
          mapItems,
          ...(sandbox === undefined ? {} : { sandbox }),
          ...(dependencies.spawnEnv === undefined ? {} : { spawnEnv: dependencies.spawnEnv }),
          ...(dependencies.processGroups === undefined ? {} : { processGroups: dependencies.processGroups }),
          ...(dependencies.summarizer === undefined ? {} : { summarizer: dependencies.summarizer }),
        });
        return withoutOmitted(result, input.omit);
      });
    },
    async storeSubagentDefinition(input) {
      return storeSubagentDefinition(input, dependencies.store);
    },
    async indexItems(input) {
      const context = Context.current();
      let last = Date.now();
      return classify(() =>
        indexMapItems(
          input,
          dependencies.store,
          (bytes) => {
            // A long read heartbeats about once a second.
            if (Date.now() - last < 1_000) return;
            last = Date.now();
            context.heartbeat({ task: input.task, bytes });
          },
          context.cancellationSignal,
        ),
      );
    },
    async writeManifestPart(input) {
      return writeResultsPart(input, dependencies.store);
    },
    async planContext(input) {
      return planContext(input);
    },
    async pruneContext(input) {
      return pruneContext(input);
    },
    async contextMetrics(input) {
      const sizes = new Map<string, number>();
      for (const entry of input.pool.entries) {
        const record = await dependencies.store.stat({ outId: entry.outId }).catch((error: unknown) => {
          if (OutputNotFoundError.isNotFound(error)) return undefined;
          throw error;
        });
        sizes.set(entry.outId, record?.sizeBytes ?? 0);
      }
      return contextMetrics(input, sizes);
    },
  };
  return guardDataPlane(activities, dependencies.dataPlane);
}

const NON_RETRYABLE: Record<string, string> = {
  INVALID_DEFINITION: wharfFailureTypes.invalidDefinition,
  DEFINITION_REF: wharfFailureTypes.definitionRef,
  UNKNOWN_PROVIDER: wharfFailureTypes.unknownModel,
  INVALID_MODEL_ID: wharfFailureTypes.unknownModel,
  MISSING_MODEL_KEY: wharfFailureTypes.unknownModel,
  INVALID_SCRIPTED_MODEL: wharfFailureTypes.unknownModel,
  FORBIDDEN: wharfFailureTypes.forbidden,
  UNKNOWN_TOOL: wharfFailureTypes.invalidDefinition,
  SANDBOX_NOT_ALLOWED: wharfFailureTypes.invalidDefinition,
};

/** Errors of `@wharf/stdio-limits` that a retry cannot mend: the same request fails again. */
const NON_RETRYABLE_SPAWN: Record<string, string> = {
  SPAWN_REQUEST_TOO_LARGE: wharfFailureTypes.invalidDefinition,
};

/**
 * Turns Wharf errors that a retry cannot fix into non-retryable Temporal failures, a process
 * lost with its spawn helper into a retryable one (logged; the process was ended, and the step
 * runs again whole, as after a worker crash), and a provider's HTTP failures into failures
 * retried (after its `Retry-After`) or not, as `modelCallFailure` says.
 */
async function classify<TResult>(run: () => Promise<TResult>): Promise<TResult> {
  try {
    return await run();
  } catch (error) {
    if (WharfOrchestratorError.isInstance(error) && NON_RETRYABLE[error.code] !== undefined) {
      throw ApplicationFailure.nonRetryable(error.message, NON_RETRYABLE[error.code]);
    }
    if (StdioLimitsError.isInstance(error) && NON_RETRYABLE_SPAWN[error.code] !== undefined) {
      throw ApplicationFailure.nonRetryable(error.message, NON_RETRYABLE_SPAWN[error.code]);
    }
    if (StdioLimitsError.isInstance(error) && error.code === 'SPAWN_HELPER_DIED') {
      Context.current().log.warn('process lost with its spawn helper; the activity is retried', {
        error: error.message,
      });
      throw ApplicationFailure.retryable(error.message, wharfFailureTypes.spawnHelperDied);
    }
    const failure = modelCallFailure(error);
    if (failure !== undefined) throw failure;
    const code = (error as { code?: unknown }).code;
    // A forged or out-of-scope stored list, or one past its reader's bounds: no retry reads it.
    if (
      code === 'FORBIDDEN' ||
      code === 'UNAUTHORIZED' ||
      code === 'UNTRUSTED_LIST' ||
      code === 'LIST_LIMIT'
    ) {
      throw ApplicationFailure.nonRetryable((error as Error).message, wharfFailureTypes.forbidden);
    }
    throw error;
  }
}
