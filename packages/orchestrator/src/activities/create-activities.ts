import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { ArtifactStore } from '@wharf/evidence';
import { OutputNotFoundError, type OutputStore } from '@wharf/output-store';
import type { ProcessGroupRegistry, Summarizer } from '@wharf/stdio-limits';
import type { ToolSet } from 'ai';
import { createAgentActivities } from '../agent/agent-activities.js';
import { contextMetrics } from '../context/context-metrics.js';
import { planContext } from '../context/plan-context.js';
import { pruneContext } from '../context/prune-context.js';
import { createModelRegistry, type ModelRegistry } from '../models/model-registry.js';
import { WharfOrchestratorError } from '../orchestrator-error.js';
import { wharfFailureTypes } from '../shared/swarm-failure.js';
import type {
  SubagentInput,
  SubagentResult,
  SuperviseInput,
  SuperviseResult,
  WharfActivities,
} from '../shared/types.js';
import type { WharfTracing } from '../tracing/wharf-tracing.js';
import { type SubagentIds, subagentIds } from './activity-identity.js';
import { runAgent } from './run-agent.js';
import { runScript } from './run-script.js';
import { supervise } from './supervise.js';

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
  /** Base environment of scripts. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Extra environment per spawn, e.g. an intake URL and a per-spawn token. */
  spawnEnv?: (ids: SubagentIds, input: SubagentInput) => Record<string, string>;
  /**
   * Records the process group of every running script, so that a worker restarted after a
   * crash ends the scripts its predecessor left behind (`processGroups.reap()` at start).
   */
  processGroups?: ProcessGroupRegistry;
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
  /** OpenTelemetry tracing of model calls and tool calls (`tracingFromEnv()`); default off. */
  tracing?: WharfTracing;
}

/**
 * The activity implementations with their dependencies injected: `runSubagent` (script and
 * agent tasks) and `supervise`. Wharf errors that retrying cannot fix (bad definitions,
 * unknown models, forbidden reads) fail without retry; storage and process-start failures
 * are retried by the workflow's bounded policy.
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
  const env = dependencies.env ?? process.env;
  const agent = createAgentActivities({
    store: dependencies.store,
    artifacts: dependencies.artifacts,
    models,
    tools: dependencies.tools ?? {},
    workDir,
    env,
    ...(dependencies.processGroups === undefined ? {} : { processGroups: dependencies.processGroups }),
    ...(dependencies.tracing === undefined ? {} : { tracing: dependencies.tracing }),
  });
  return {
    agentStart: (input) => classify(() => agent.agentStart(input)),
    agentModelStep: (input) => classify(() => agent.agentModelStep(input)),
    agentToolCall: (input) => classify(() => agent.agentToolCall(input)),
    agentSpawnRequest: (input) => classify(() => agent.agentSpawnRequest(input)),
    agentFinish: (input) => classify(() => agent.agentFinish(input)),
    async runSubagent(input: SubagentInput): Promise<SubagentResult> {
      const info = Context.current().info;
      const ids = subagentIds(input, {
        workflowId: info.workflowExecution?.workflowId ?? 'standalone',
        runId: info.workflowExecution?.runId ?? info.activityId,
        activityId: info.activityId,
      });
      return classify(() =>
        input.definition.script !== undefined
          ? runScript(input, ids, {
              store: dependencies.store,
              artifacts: dependencies.artifacts,
              workDir,
              env,
              ...(dependencies.spawnEnv === undefined ? {} : { spawnEnv: dependencies.spawnEnv }),
              ...(dependencies.processGroups === undefined
                ? {}
                : { processGroups: dependencies.processGroups }),
              ...(dependencies.summarizer === undefined ? {} : { summarizer: dependencies.summarizer }),
            })
          : runAgent(input, ids, { store: dependencies.store, artifacts: dependencies.artifacts, models }),
      );
    },
    async supervise(input: SuperviseInput): Promise<SuperviseResult> {
      return classify(() =>
        supervise(input, {
          store: dependencies.store,
          artifacts: dependencies.artifacts,
          models,
          ...(dependencies.tracing === undefined ? {} : { tracing: dependencies.tracing }),
        }),
      );
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
}

const NON_RETRYABLE: Record<string, string> = {
  INVALID_DEFINITION: wharfFailureTypes.invalidDefinition,
  UNKNOWN_MODEL: wharfFailureTypes.unknownModel,
  FORBIDDEN: wharfFailureTypes.forbidden,
  UNKNOWN_TOOL: wharfFailureTypes.invalidDefinition,
};

/** Turns Wharf errors that a retry cannot fix into non-retryable Temporal failures. */
async function classify<TResult>(run: () => Promise<TResult>): Promise<TResult> {
  try {
    return await run();
  } catch (error) {
    if (WharfOrchestratorError.isInstance(error) && NON_RETRYABLE[error.code] !== undefined) {
      throw ApplicationFailure.nonRetryable(error.message, NON_RETRYABLE[error.code]);
    }
    const code = (error as { code?: unknown }).code;
    if (code === 'FORBIDDEN' || code === 'UNAUTHORIZED') {
      throw ApplicationFailure.nonRetryable((error as Error).message, wharfFailureTypes.forbidden);
    }
    throw error;
  }
}
