import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Context } from '@temporalio/activity';
import { CancelledFailure } from '@temporalio/common';
import { type ArtifactStore, formatSpawnResult } from '@wharf/evidence';
import type { OutputRef, OutputStore } from '@wharf/output-store';
import { type ProcessGroupRegistry, resolveLimits, truncateOutput } from '@wharf/stdio-limits';
import { generateText, type ModelMessage, type ToolSet } from 'ai';
import { type SubagentIds, subagentIds } from '../activities/activity-identity.js';
import { heartbeatWhile } from '../activities/heartbeat-while.js';
import { recordWorker } from '../activities/record-worker.js';
import { agentPrompt } from '../activities/run-agent.js';
import { subagentContext } from '../activities/subagent-context.js';
import type { ModelRegistry } from '../models/model-registry.js';
import { WharfOrchestratorError } from '../orchestrator-error.js';
import type {
  AgentActivities,
  AgentFinishInput,
  AgentModelStepResult,
  AgentStartResult,
  AgentStepInput,
  AgentTaskInput,
  AgentToolCallInput,
  AgentToolCallResult,
  AgentUsage,
  SubagentInput,
  SubagentResult,
} from '../shared/types.js';
import { type AgentBrief, agentBriefSchema, briefIdentity } from './agent-brief.js';
import { agentTools, offeredTools, unknownToolNames } from './agent-tools.js';
import { findRecord, loadConversation, loadRecord, storeRecord } from './conversation-records.js';
import { isToolOutput, type ToolOutput } from './tool-output.js';
import { usageOf } from './usage-of.js';

/** What the agent activities need. */
export interface AgentActivityDependencies {
  store: OutputStore;
  artifacts: ArtifactStore;
  models: ModelRegistry;
  /** Tools registered with the worker, selectable by `agents.<name>.tools`. */
  tools: ToolSet;
  /** The worker's work directory: spill files of tool calls live here until handed over. */
  workDir: string;
  env: NodeJS.ProcessEnv;
  processGroups?: ProcessGroupRegistry;
}

/** Most bytes of one tool output the model is shown; the rest is in the stores. */
export const TOOL_OUTPUT_BUDGET = 16_000;
const PREVIEW_CHARS = 300;

/**
 * The activities of a durable agent task, one per step: `agentStart` stores the brief and
 * the prompt, `agentModelStep` calls the model once, `agentToolCall` runs one tool call and
 * `agentFinish` hands in the task's outputs. Each stores its result under an idempotency key
 * derived from the agent workflow and the step before returning, and a retry (the worker
 * died) that finds it returns it without calling the model or the tool again.
 *
 * @example
 * ```ts
 * const activities = createAgentActivities({ store, artifacts, models, tools: {}, workDir, env: process.env });
 * ```
 */
export function createAgentActivities(dependencies: AgentActivityDependencies): AgentActivities {
  const { store, artifacts } = dependencies;

  const identity = (brief: Pick<SubagentInput, 'task' | 'instance' | 'runId' | 'ownerId' | 'definition'>) => {
    const info = Context.current().info;
    return subagentIds(brief, {
      workflowId: info.workflowExecution?.workflowId ?? 'standalone',
      runId: info.workflowExecution?.runId ?? 'standalone',
      activityId: 'agent',
    });
  };
  const loadBrief = async (outId: string): Promise<{ brief: AgentBrief; ids: SubagentIds }> => {
    const { body } = await store.get({ outId });
    const brief = agentBriefSchema.parse(JSON.parse(Buffer.from(body).toString('utf8'))) as AgentBrief;
    return { brief, ids: identity(briefIdentity(brief) as never) };
  };

  return {
    async agentStart(input: AgentTaskInput): Promise<AgentStartResult> {
      const agent = input.agent;
      if (agent === undefined) {
        throw new WharfOrchestratorError('INVALID_DEFINITION', `task ${input.task} names no agent`);
      }
      const ids = identity(input);
      const briefKey = `${ids.emitKeyPrefix}/brief`;
      const promptKey = `${ids.emitKeyPrefix}/prompt`;
      const earlierBrief = await store.findByIdempotencyKey({ ...scopeOf(ids) }, briefKey);
      const earlierPrompt = await store.findByIdempotencyKey({ ...scopeOf(ids) }, promptKey);
      if (earlierBrief !== undefined && earlierPrompt !== undefined) {
        return { brief: earlierBrief.outId, conversation: [earlierPrompt.outId], maxSteps: agent.max_steps };
      }
      // Bad definitions fail here, before anything is paid for.
      dependencies.models.resolve(agent.model);
      const unknown = unknownToolNames(agent.tools, dependencies.tools);
      if (unknown.length > 0) {
        throw new WharfOrchestratorError(
          'UNKNOWN_TOOL',
          `agent of task ${input.task}: unknown tool ${unknown.map((name) => `"${name}"`).join(', ')}; tools on this worker: ${Object.keys(dependencies.tools).join(', ') || 'built-ins only'}`,
        );
      }
      const startedAt = new Date();
      const brief: AgentBrief = {
        swarm: input.swarm,
        task: input.task,
        instance: input.instance,
        looped: (input.definition.loop?.count ?? 1) > 1,
        runId: input.runId,
        ownerId: input.ownerId,
        model: agent.model,
        ...(agent.system === undefined ? {} : { system: agent.system }),
        tools: agent.tools,
        maxSteps: agent.max_steps,
        limits: { ...(input.limits ?? {}), ...(input.definition.limits ?? {}) },
        ...(input.workdir === undefined ? {} : { workdir: input.workdir }),
        readable: [...input.inRefs, ...(input.context?.entries ?? []).map((entry) => entry.outId)],
        inRefs: input.inRefs,
        startedAt: startedAt.toISOString(),
      };
      await recordWorker(artifacts, ids, { task: input.task, status: 'running', startedAt });
      const briefRef = await store.emit({
        producer: { ownerId: ids.ownerId, runId: ids.runId, spawnId: ids.jobId, agent: 'wharf-agent' },
        content: { kind: 'text', text: JSON.stringify(brief) },
        idempotencyKey: briefKey,
        name: `${ids.jobId}.brief.json`,
        contentType: 'application/json',
        labels: { kind: 'agent-brief', conversation: input.task },
      });
      const context = await subagentContext(input.context, store);
      const prompt = await storeRecord(store, ids, {
        key: promptKey,
        task: input.task,
        name: `${ids.jobId}.prompt.json`,
        record: { messages: [{ role: 'user', content: agentPrompt(input, context?.text) }] },
      });
      return { brief: briefRef.outId, conversation: [prompt], maxSteps: agent.max_steps };
    },

    async agentModelStep(input: AgentStepInput): Promise<AgentModelStepResult> {
      const { brief, ids } = await loadBrief(input.brief);
      const key = `${ids.emitKeyPrefix}/step-${input.step}`;
      const earlier = await findRecord(store, ids, key);
      if (earlier?.record.model !== undefined) return stepResult(earlier.outId, earlier.record.model);

      const model = dependencies.models.resolve(brief.model);
      const tools = agentTools(toolsOptions(brief, ids, `${key}/offered`, undefined));
      const messages = await loadConversation(store, input.conversation);
      const context = Context.current();
      const result = await heartbeatWhile(
        context,
        () =>
          generateText({
            model,
            ...(brief.system === undefined ? {} : { system: brief.system }),
            messages,
            tools: offeredTools(tools),
            abortSignal: context.cancellationSignal,
          }),
        { task: brief.task, step: input.step },
      );
      const usage = usageOf(result.usage, dependencies.models.price?.(brief.model));
      const meta = {
        toolCalls: result.toolCalls
          .filter((call) => call.invalid !== true && call.providerExecuted !== true)
          .map((call) => ({ toolCallId: call.toolCallId, toolName: call.toolName })),
        calledTools: result.toolCalls.length > 0,
        finishReason: result.finishReason,
        usage,
        text: result.text,
      };
      const outId = await storeRecord(store, ids, {
        key,
        task: brief.task,
        name: `${ids.jobId}.step-${input.step}.json`,
        record: { messages: result.response.messages as ModelMessage[], model: meta },
      });
      return stepResult(outId, meta);
    },

    async agentToolCall(input: AgentToolCallInput): Promise<AgentToolCallResult> {
      const { brief, ids } = await loadBrief(input.brief);
      const key = `${ids.emitKeyPrefix}/step-${input.step}/tool-${input.toolCallId}`;
      const earlier = await findRecord(store, ids, key);
      if (earlier?.record.tool !== undefined) return { record: earlier.outId, ...earlier.record.tool };

      const step = await loadRecord(store, input.record);
      const call = findToolCall(step.messages, input.toolCallId);
      if (call === undefined) {
        throw new WharfOrchestratorError(
          'INVALID_REQUEST',
          `step ${input.step} of task ${brief.task} has no tool call ${input.toolCallId}`,
        );
      }
      const context = Context.current();
      const spillDir = join(
        dependencies.workDir,
        ids.workerId,
        `tool-${input.seq}-attempt-${context.info.attempt}`,
      );
      let emitted: OutputRef | undefined;
      const tools = agentTools({
        ...toolsOptions(brief, ids, `${ids.emitKeyPrefix}/emit/${input.step}/${input.toolCallId}`, spillDir),
        onEmit: (ref) => {
          emitted = ref;
        },
      });
      const began = new Date();
      let outcome: ToolOutput;
      try {
        const chosen = tools[call.toolName];
        if (chosen?.execute === undefined) throw new Error(`no tool named ${call.toolName}`);
        const execute = chosen.execute as (input: unknown, options: unknown) => unknown;
        const value = await heartbeatWhile(
          context,
          async () =>
            lastValue(
              await execute(call.input, {
                toolCallId: input.toolCallId,
                messages: [],
                abortSignal: context.cancellationSignal,
              }),
            ),
          { task: brief.task, tool: call.toolName },
        );
        outcome = isToolOutput(value) ? value : { text: asText(value), full: asText(value) };
      } catch (error) {
        if (context.cancellationSignal.aborted) throw new CancelledFailure(`tool ${call.toolName} cancelled`);
        const message = `error: ${(error as Error).message}`;
        outcome = { text: message, full: message, failed: true };
      }
      // Temporal cancelled the task: the tool stopped (a shell's process group is gone); record nothing.
      if (context.cancellationSignal.aborted) {
        await rm(spillDir, { recursive: true, force: true });
        throw new CancelledFailure(`tool ${call.toolName} cancelled`);
      }
      const ended = new Date();
      const limits = resolveLimits(undefined, { limits: brief.limits });
      const strategy = limits.truncation_strategy === 'summary' ? 'both' : limits.truncation_strategy;
      const shown = truncateOutput(outcome.text, TOOL_OUTPUT_BUDGET, strategy);
      const fullBytes =
        typeof outcome.full === 'string' ? Buffer.byteLength(outcome.full) : outcome.full.bytes;
      const big = shown.truncated || fullBytes > TOOL_OUTPUT_BUDGET;
      let fullRef: string | undefined;
      if (big) {
        // The whole output is one read_input away; the model is told where.
        const ref = await store.emit({
          producer: { ownerId: ids.ownerId, runId: ids.runId, spawnId: ids.jobId, agent: call.toolName },
          content:
            typeof outcome.full === 'string'
              ? { kind: 'text', text: outcome.full }
              : { kind: 'stream', stream: createReadStream(outcome.full.filePath) },
          idempotencyKey: `${key}/output`,
          name: `${ids.jobId}.${call.toolName}-${input.seq}.log`,
          contentType: 'text/plain',
          labels: { kind: 'tool-output', tool: call.toolName, conversation: brief.task },
        });
        fullRef = ref.outId;
      }
      await artifacts.putToolCall(
        ids.workerId,
        {
          seq: input.seq,
          toolName: call.toolName,
          exitCode: outcome.exitCode !== undefined ? outcome.exitCode : outcome.failed === true ? 1 : 0,
          durationMs: ended.getTime() - began.getTime(),
          startedAt: began.toISOString(),
          endedAt: ended.toISOString(),
        },
        outcome.full,
      );
      await rm(spillDir, { recursive: true, force: true });
      const text =
        fullRef === undefined
          ? shown.content
          : `${shown.content}\n[full output: ${fullRef} (${fullBytes} bytes); read it with read_input]`;
      const meta = {
        toolName: call.toolName,
        bytes: fullBytes,
        truncated: big,
        failed: outcome.failed === true,
        ...(emitted === undefined ? {} : { emitted: emitted.outId }),
      };
      const record = await storeRecord(store, ids, {
        key,
        task: brief.task,
        name: `${ids.jobId}.tool-${input.seq}.json`,
        record: {
          messages: [
            {
              role: 'tool',
              content: [
                {
                  type: 'tool-result',
                  toolCallId: input.toolCallId,
                  toolName: call.toolName,
                  output: meta.failed ? { type: 'error-text', value: text } : { type: 'text', value: text },
                },
              ],
            },
          ],
          tool: meta,
        },
      });
      return { record, ...meta };
    },

    async agentFinish(input: AgentFinishInput): Promise<SubagentResult> {
      const { brief, ids } = await loadBrief(input.brief);
      const last = input.conversation.at(-1);
      const lastRecord = last === undefined ? undefined : await loadRecord(store, last);
      let text = '';
      for (const outId of [...input.conversation].reverse()) {
        const record = outId === last ? lastRecord : await loadRecord(store, outId);
        if (record?.model !== undefined) {
          text = record.model.text;
          break;
        }
      }
      const outputs: OutputRef[] = input.emitted.map((outId) => ({ outId }));
      // A model that never called emit: its final text is the output, so nothing is lost.
      if (outputs.length === 0 && text.trim() !== '') {
        outputs.push(
          await store.emit({
            producer: { ownerId: ids.ownerId, runId: ids.runId, spawnId: ids.jobId, agent: brief.model },
            content: { kind: 'text', text },
            idempotencyKey: `${ids.emitKeyPrefix}/final-text`,
            name: `${ids.jobId}.md`,
            contentType: 'text/markdown',
            labels: { task: brief.task, instance: String(brief.instance), source: 'final-text' },
          }),
        );
      }
      let bytes = 0;
      for (const ref of outputs) bytes += (await store.stat(ref)).sizeBytes;
      const summary = input.error === undefined ? text : `failed: ${input.error}`;
      const startedAt = new Date(brief.startedAt);
      const endedAt = new Date();
      const failed = input.error !== undefined;
      await artifacts.putResult(ids.workerId, summary);
      await recordWorker(artifacts, ids, {
        task: brief.task,
        status: failed ? 'failed' : 'succeeded',
        startedAt,
        endedAt,
      });
      const durationMs = endedAt.getTime() - startedAt.getTime();
      return {
        status: failed ? 'failed' : 'ok',
        outputs,
        compact: formatSpawnResult({
          runId: ids.runId,
          jobId: ids.jobId,
          workerId: ids.workerId,
          status: failed ? 'failed' : 'succeeded',
          durationMs,
          toolIndex: await artifacts.listToolCalls(ids.workerId),
          summary,
        }),
        bytes,
        durationMs,
        preview: Array.from(summary).slice(0, PREVIEW_CHARS).join(''),
        ...(input.usage.calls > 0 ? { usage: input.usage } : {}),
        ...(failed ? { stderrTail: input.error } : {}),
      };
    },
  };

  function toolsOptions(brief: AgentBrief, ids: SubagentIds, emitKey: string, spillDir: string | undefined) {
    const context = Context.current();
    return {
      brief,
      ids,
      store,
      artifacts,
      workerTools: dependencies.tools,
      emitKey,
      builtin: {
        workdir: brief.workdir ?? process.cwd(),
        limits: brief.limits,
        budgetBytes: TOOL_OUTPUT_BUDGET,
        spillDir: spillDir ?? join(dependencies.workDir, ids.workerId, 'unused'),
        env: dependencies.env,
        signal: context.cancellationSignal,
        ...(dependencies.processGroups === undefined ? {} : { processGroups: dependencies.processGroups }),
        onProgress: (bytes: number) => context.heartbeat({ task: brief.task, bytes }),
      },
    };
  }
}

function scopeOf(ids: SubagentIds) {
  return { ownerId: ids.ownerId, runId: ids.runId, spawnId: ids.jobId };
}

function stepResult(
  record: string,
  meta: {
    toolCalls: AgentModelStepResult['toolCalls'];
    calledTools: boolean;
    finishReason: string;
    usage: AgentUsage;
    text: string;
  },
): AgentModelStepResult {
  return {
    record,
    toolCalls: meta.toolCalls,
    finishReason: meta.calledTools && meta.toolCalls.length === 0 ? 'invalid-tool-calls' : meta.finishReason,
    usage: meta.usage,
    textBytes: Buffer.byteLength(meta.text),
  };
}

function findToolCall(
  messages: readonly ModelMessage[],
  toolCallId: string,
): { toolName: string; input: unknown } | undefined {
  for (const message of messages) {
    if (message.role !== 'assistant' || typeof message.content === 'string') continue;
    for (const part of message.content) {
      if (part.type === 'tool-call' && part.toolCallId === toolCallId) return part;
    }
  }
  return undefined;
}

/** A streaming tool's last value, or the value itself. */
async function lastValue(value: unknown): Promise<unknown> {
  if (typeof value === 'object' && value !== null && Symbol.asyncIterator in value) {
    let last: unknown;
    for await (const item of value as AsyncIterable<unknown>) last = item;
    return last;
  }
  return value;
}

function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  return JSON.stringify(value, null, 2) ?? String(value);
}
