import { Context } from '@temporalio/activity';
import {
  type ArtifactStore,
  createEvidenceTools,
  EvidenceCompiler,
  formatSpawnResult,
} from '@wharf/evidence';
import type { OutputRef, OutputStore } from '@wharf/output-store';
import { generateText, isStepCount, type Tool, type ToolSet, tool } from 'ai';
import { emitDescription, emitInputSchema } from '../agent/agent-tools.js';
import { readInputTool } from '../agent/read-input-tool.js';
import { usageOf } from '../agent/usage-of.js';
import type { ModelRegistry } from '../models/model-registry.js';
import { WharfOrchestratorError } from '../orchestrator-error.js';
import type { SubagentHeartbeat, SubagentInput, SubagentResult } from '../shared/types.js';
import { emitScope, type SubagentIds } from './activity-identity.js';
import { heartbeatWhile } from './heartbeat-while.js';
import { recordWorker } from './record-worker.js';
import { subagentContext } from './subagent-context.js';

/** What {@link runAgent} needs besides its input. */
export interface AgentDependencies {
  store: OutputStore;
  artifacts: ArtifactStore;
  models: ModelRegistry;
}

/**
 * Runs an agent task in one activity (swarm runs started before Wharf ran agent tasks as
 * `agentTaskWorkflow`, one activity per step, still do): an AI SDK tool loop whose model hands in its output through the
 * `emit` tool (never as a big final text), reads its `IN_REFS` with `read_input`, and may
 * pull other workers' evidence of the same run. Every tool call is recorded in the artifact
 * store. If the model never calls `emit`, its final text is EMITted so nothing is lost.
 */
export async function runAgent(
  input: SubagentInput,
  ids: SubagentIds,
  dependencies: AgentDependencies,
): Promise<SubagentResult> {
  const agent = input.agent;
  if (agent === undefined) {
    throw new WharfOrchestratorError('INVALID_DEFINITION', `task ${input.task} names no agent`);
  }
  const { store, artifacts } = dependencies;
  const model = dependencies.models.resolve(agent.model);
  const context = Context.current();
  const attempt = context.info.attempt;

  const finished = await artifacts.getWorker(ids.workerId);
  const first = await store.findByIdempotencyKey(emitScope(ids), `${ids.emitKeyPrefix}/final/0`);
  if (finished?.status === 'succeeded' && first !== undefined) return resumeAgent(ids, dependencies, first);

  const startedAt = new Date();
  await recordWorker(artifacts, ids, { task: input.task, status: 'running', startedAt });
  const producer = { ownerId: ids.ownerId, runId: ids.runId, spawnId: ids.jobId, agent: agent.model };
  const outputs: OutputRef[] = [];
  let bytes = 0;
  let seq = 0;
  const record = async (toolName: string, output: string, failed: boolean, began: Date): Promise<void> => {
    seq += 1;
    const ended = new Date();
    await artifacts.putToolCall(
      ids.workerId,
      {
        seq,
        toolName,
        exitCode: failed ? 1 : 0,
        durationMs: ended.getTime() - began.getTime(),
        startedAt: began.toISOString(),
        endedAt: ended.toISOString(),
      },
      output,
    );
  };
  // Keys are per attempt: a retried model loop may say something else; only a finished
  // attempt's outputs (under `final/`) are the task's outputs.
  const emitKey = (index: number) => `${ids.emitKeyPrefix}/attempt-${attempt}/${index}`;
  // The outputs in its context are readable too: a masked or cut one says where the rest is.
  const allowedInputs = new Set([
    ...input.inRefs,
    ...(input.context?.entries ?? []).map((entry) => entry.outId),
  ]);
  const smartContext = await subagentContext(input.context, store);

  const tools: ToolSet = {
    emit: tool({
      description: emitDescription,
      inputSchema: emitInputSchema,
      execute: async ({ body, name, content_type }) => {
        const ref = await store.emit({
          producer,
          content: { kind: 'text', text: body },
          idempotencyKey: emitKey(outputs.length),
          contentType: content_type ?? 'text/plain',
          labels: { task: input.task, attempt: String(attempt) },
          ...(name === undefined ? {} : { name }),
        });
        outputs.push(ref);
        bytes += Buffer.byteLength(body);
        return { outId: ref.outId, bytes: Buffer.byteLength(body) };
      },
    }),
    read_input: readInputTool({ store, inRefs: input.inRefs, readable: allowedInputs }),
    ...createEvidenceTools({
      compiler: new EvidenceCompiler({ store: artifacts }),
      runId: ids.runId,
      ownerId: ids.ownerId,
    }),
  };
  const recorded = recordingTools(tools, record);

  // What `wharf run --follow` shows of this agent: the heartbeats carry its step and tool calls.
  const live: SubagentHeartbeat = {
    task: input.task,
    // Only a loop instance is told apart by its number.
    ...(input.definition.loop === undefined ? {} : { instance: input.instance }),
    bytes: 0,
    step: 0,
    toolCalls: [],
  };
  let text: string;
  let usage: SubagentResult['usage'];
  try {
    const result = await heartbeatWhile(
      context,
      () =>
        generateText({
          model,
          ...(agent.system === undefined ? {} : { system: agent.system }),
          prompt: agentPrompt(input, smartContext?.text),
          tools: recorded,
          stopWhen: isStepCount(agent.max_steps),
          abortSignal: context.cancellationSignal,
          onStepFinish: (step) => {
            live.step = (live.step ?? 0) + 1;
            live.toolCalls = [
              ...(live.toolCalls ?? []),
              ...step.toolCalls.map((call) => call.toolName),
            ].slice(-8);
            live.bytes = bytes;
            context.heartbeat(live);
          },
        }),
      live,
    );
    text = result.text;
    usage = usageOf(result.totalUsage, dependencies.models.price?.(agent.model), result.steps.length);
  } catch (error) {
    await artifacts.putResult(ids.workerId, `model call failed: ${(error as Error).message}`);
    await recordWorker(artifacts, ids, {
      task: input.task,
      status: 'failed',
      startedAt,
      endedAt: new Date(),
    });
    throw error;
  }

  // The task's outputs are re-registered under attempt-independent keys, final text last.
  const bodies = [...outputs];
  if (bodies.length === 0 && text.trim() !== '') {
    bodies.push(
      await store.emit({
        producer,
        content: { kind: 'text', text },
        idempotencyKey: emitKey(0),
        name: `${ids.jobId}.md`,
        contentType: 'text/markdown',
        labels: { task: input.task, attempt: String(attempt), source: 'final-text' },
      }),
    );
    bytes += Buffer.byteLength(text);
  }
  const finals: OutputRef[] = [];
  for (const [index, ref] of bodies.entries()) {
    const { body, record: meta } = await store.get(ref);
    finals.push(
      await store.emit({
        producer,
        content: { kind: 'bytes', bytes: body },
        idempotencyKey: `${ids.emitKeyPrefix}/final/${index}`,
        contentType: meta.contentType,
        labels: { ...meta.labels, final: 'true' },
        ...(meta.name === undefined ? {} : { name: meta.name }),
      }),
    );
  }
  const endedAt = new Date();
  await artifacts.putResult(ids.workerId, text);
  await recordWorker(artifacts, ids, { task: input.task, status: 'succeeded', startedAt, endedAt });
  return {
    status: 'ok',
    outputs: finals,
    compact: formatSpawnResult({
      runId: ids.runId,
      jobId: ids.jobId,
      workerId: ids.workerId,
      status: 'succeeded',
      durationMs: endedAt.getTime() - startedAt.getTime(),
      toolIndex: await artifacts.listToolCalls(ids.workerId),
      summary: text,
    }),
    bytes,
    durationMs: endedAt.getTime() - startedAt.getTime(),
    preview: Array.from(text).slice(0, 300).join(''),
    ...(usage === undefined ? {} : { usage }),
  };
}

async function resumeAgent(
  ids: SubagentIds,
  dependencies: AgentDependencies,
  first: OutputRef,
): Promise<SubagentResult> {
  const { store, artifacts } = dependencies;
  const outputs: OutputRef[] = [first];
  for (let index = 1; ; index++) {
    const ref = await store.findByIdempotencyKey(emitScope(ids), `${ids.emitKeyPrefix}/final/${index}`);
    if (ref === undefined) break;
    outputs.push(ref);
  }
  const worker = await artifacts.getWorker(ids.workerId);
  const summary = (await artifacts.getResult(ids.workerId)) ?? '';
  let bytes = 0;
  for (const ref of outputs) bytes += (await store.stat(ref)).sizeBytes;
  return {
    status: 'ok',
    outputs,
    compact: formatSpawnResult({
      runId: ids.runId,
      jobId: ids.jobId,
      workerId: ids.workerId,
      status: 'succeeded',
      durationMs: worker?.durationMs ?? 0,
      toolIndex: await artifacts.listToolCalls(ids.workerId),
      summary,
    }),
    bytes,
    durationMs: worker?.durationMs ?? 0,
    preview: Array.from(summary).slice(0, 300).join(''),
  };
}

/**
 * The task prompt of an agent: its prompt (or description), inputs, context and IN_REFS.
 *
 * @example
 * ```ts
 * const prompt = agentPrompt(input, smartContext?.text);
 * ```
 */
export function agentPrompt(input: SubagentInput, context: string | undefined): string {
  const lines = [input.definition.prompt ?? input.definition.description ?? `Do the task "${input.task}".`];
  if (Object.keys(input.inputs).length > 0) lines.push('', `Inputs: ${JSON.stringify(input.inputs)}`);
  if (context !== undefined && input.context !== undefined) {
    const ids = input.context.entries.map((entry) => `${entry.taskId}=${entry.outId}`).join(', ');
    lines.push('', `Outputs of earlier tasks (read one whole with read_input: ${ids}):`, context);
  }
  if (input.inRefs.length > 0) lines.push('', `IN_REFS (read with read_input): ${input.inRefs.join(', ')}`);
  lines.push('', 'Hand in your output with the emit tool, then answer with a one-line summary.');
  return lines.join('\n');
}

/** Wraps every tool so each call is recorded as an artifact (output or error text). */
function recordingTools(
  tools: ToolSet,
  record: (toolName: string, output: string, failed: boolean, began: Date) => Promise<void>,
): ToolSet {
  const wrapped: ToolSet = {};
  for (const [name, original] of Object.entries(tools)) {
    const execute = (original as Tool).execute;
    if (execute === undefined) {
      wrapped[name] = original;
      continue;
    }
    wrapped[name] = {
      ...original,
      execute: async (toolInput: unknown, options: unknown) => {
        const began = new Date();
        try {
          const output = await (execute as (input: unknown, options: unknown) => Promise<unknown>)(
            toolInput,
            options,
          );
          await record(name, typeof output === 'string' ? output : JSON.stringify(output), false, began);
          return output;
        } catch (error) {
          await record(name, `error: ${(error as Error).message}`, true, began);
          throw error;
        }
      },
    } as Tool;
  }
  return wrapped;
}
