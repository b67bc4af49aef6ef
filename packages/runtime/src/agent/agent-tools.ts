import { type ArtifactStore, createEvidenceTools, EvidenceCompiler } from '@wharf/evidence';
import { isReservedContentType, type OutputRef, type OutputStore } from '@wharf/output-store';
import type { SpawnedWorker } from '@wharf/swarm';
import {
  alwaysOnToolNames,
  builtinToolNames,
  spawnWorkerToolName,
  WharfOrchestratorError,
} from '@wharf/swarm';
import { type Tool, type ToolSet, tool } from 'ai';
import { z } from 'zod';
import { emitScope, type SubagentIds, safeId, taskJobId } from '../activities/activity-identity.js';
import type { AgentBrief } from './agent-brief.js';
import { type BuiltinToolContext, builtinTools } from './builtin-tools.js';
import { readInputTool } from './read-input-tool.js';
import { spawnWorkerTool } from './spawn-worker-tool.js';

/** What the model is told of the `emit` tool. */
export const emitDescription =
  'Hand in your output. Put the full body here (reports, data, code); your final message should only be a one-line summary.';

/** Input of the `emit` tool an agent hands its output in with. */
export const emitInputSchema = z.object({
  body: z.string().describe('The full output'),
  name: z.string().optional().describe('A file-like name, e.g. report.md'),
  content_type: z.string().optional().describe('MIME type, default text/plain'),
});

/** What one agent tool call runs with. */
export interface AgentToolsOptions {
  brief: AgentBrief;
  ids: SubagentIds;
  store: OutputStore;
  artifacts: ArtifactStore;
  /** Tools registered with the worker (AI SDK `tool()` objects, MCP tools). */
  workerTools: ToolSet;
  builtin: BuiltinToolContext;
  /** Idempotency key of an `emit` made by this call. */
  emitKey: string;
  /** Told the ref of what `emit` stored. */
  onEmit?: (ref: OutputRef) => void;
  /** For a `spawn_worker` call: the worker the agent workflow ran for it. */
  spawned?: SpawnedWorker;
}

/**
 * The names in `requested` that are neither built-in, always there, nor registered with the
 * worker.
 *
 * @example
 * ```ts
 * unknownToolNames(['shell', 'sehll'], {}); // ['sehll']
 * ```
 */
export function unknownToolNames(requested: readonly string[], workerTools: ToolSet): string[] {
  const known = new Set<string>([
    ...builtinToolNames,
    ...alwaysOnToolNames,
    spawnWorkerToolName,
    ...Object.keys(workerTools),
  ]);
  return requested.filter((name) => !known.has(name));
}

/**
 * The tools of one agent: `emit`, `read_input` and the evidence pull tools, plus the ones
 * its `tools` select from the built-ins and the worker's tools (a worker tool of the same
 * name as a built-in wins).
 *
 * @example
 * ```ts
 * const tools = agentTools({ brief, ids, store, artifacts, workerTools, builtin, emitKey });
 * ```
 */
export function agentTools(options: AgentToolsOptions): ToolSet {
  const { brief, ids, store, artifacts } = options;
  const unknown = unknownToolNames(brief.tools, options.workerTools);
  if (unknown.length > 0) {
    throw new WharfOrchestratorError(
      'UNKNOWN_TOOL',
      `task ${brief.task}: unknown tool ${unknown.map((name) => `"${name}"`).join(', ')}; this worker has ${[
        ...builtinToolNames,
        ...Object.keys(options.workerTools),
      ].join(', ')}`,
    );
  }
  const builtins = builtinTools(options.builtin);
  const selected: ToolSet = {};
  for (const name of brief.tools) {
    const chosen = options.workerTools[name] ?? builtins[name];
    if (chosen !== undefined) selected[name] = chosen;
  }
  // A spawned worker (or a task whose swarm has no agents to start) is not offered it.
  if (
    brief.tools.includes(spawnWorkerToolName) &&
    options.workerTools[spawnWorkerToolName] === undefined &&
    (brief.spawnable?.length ?? 0) > 0
  ) {
    selected[spawnWorkerToolName] = spawnWorkerTool(brief, options.spawned);
  }
  const readable = new Set(brief.readable);
  const scope = emitScope(ids);
  const producer = { ownerId: ids.ownerId, runId: ids.runId, spawnId: ids.jobId, agent: brief.model };
  return {
    ...selected,
    emit: tool({
      description: emitDescription,
      inputSchema: emitInputSchema,
      execute: async ({ body, name, content_type }) => {
        // Stored lists and payloads are Wharf's own: a model cannot make its output read as one.
        if (content_type !== undefined && isReservedContentType(content_type))
          return `refused: the content type ${content_type} is reserved for Wharf's own stored lists; emit the body as application/json or text/plain`;
        const ref = await store.emit({
          producer,
          content: { kind: 'text', text: body },
          idempotencyKey: options.emitKey,
          contentType: content_type ?? 'text/plain',
          labels: { task: brief.task, instance: String(brief.instance) },
          ...(name === undefined ? {} : { name }),
        });
        options.onEmit?.(ref);
        return { outId: ref.outId, bytes: Buffer.byteLength(body) };
      },
    }),
    read_input: readInputTool({
      store,
      inRefs: brief.inRefs,
      readable,
      scope: { ownerId: ids.ownerId, runIds: [ids.runId, ...(brief.readRuns ?? []).map(safeId)] },
      // Its own records too (a cut tool output names the out id of the whole), what the
      // workers it spawned stored (their job ids are `<job>.spawn-<n>`), and with stored lists
      // among its inputs every output of its run.
      mayRead: (record) =>
        record.producer.ownerId === scope.ownerId &&
        record.producer.runId === scope.runId &&
        (brief.readRun === true ||
          record.producer.spawnId === scope.spawnId ||
          record.producer.spawnId.startsWith(`${scope.spawnId}.spawn-`)),
    }),
    ...createEvidenceTools({
      compiler: new EvidenceCompiler({ store: artifacts }),
      runId: ids.runId,
      ownerId: ids.ownerId,
      // A re-run's supervisor reads the evidence of the tasks it reused, as the run's did.
      readRuns: (brief.readRuns ?? []).map(safeId),
      // Job ids as `subagentIds` gives them, so a task and instance name the worker that ran it.
      jobIdOf: taskJobId,
    }),
  };
}

/**
 * The same tools without `execute`: what the model is offered. The AI SDK then returns the
 * tool calls instead of running them, and Wharf runs each as an activity of its own.
 *
 * @example
 * ```ts
 * await generateText({ model, messages, tools: offeredTools(tools) });
 * ```
 */
export function offeredTools(tools: ToolSet): ToolSet {
  const offered: ToolSet = {};
  for (const [name, original] of Object.entries(tools)) {
    const { execute: _execute, ...rest } = original as Tool & { execute?: unknown };
    offered[name] = rest as Tool;
  }
  return offered;
}
