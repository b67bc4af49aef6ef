import { Context } from '@temporalio/activity';
import { EvidenceCompiler } from '@wharf/evidence';
import type { OutputRef } from '@wharf/output-store';
import type {
  AgentActivities,
  AgentFinishInput,
  AgentModelStepResult,
  AgentStartResult,
  AgentStepInput,
  AgentTaskInput,
  AgentUsage,
  SubagentHeartbeat,
  SubagentResult,
  SuperviseResult,
} from '@wharf/swarm';
import { isLooped, isStoredListValue, mergeSandboxSettings, WharfOrchestratorError } from '@wharf/swarm';
import { generateText, type ModelMessage } from 'ai';
import { type SubagentIds, safeId } from '../activities/activity-identity.js';
import { heartbeatWhile } from '../activities/heartbeat-while.js';
import { recordWorker } from '../activities/record-worker.js';
import { instanceInputs } from '../activities/stored-lists.js';
import { subagentResult } from '../activities/subagent-result.js';
import { streamedGenerate } from '../models/streamed-generate.js';
import { modelCallTelemetry } from '../tracing/wharf-tracing.js';
import type { AgentBrief } from './agent-brief.js';
import { agentPrompt } from './agent-prompt.js';
import {
  type AgentActivityDependencies,
  agentIdentity,
  agentToolsOptions,
  loadBrief,
} from './agent-step-context.js';
import { agentTools, offeredTools, unknownToolNames } from './agent-tools.js';
import { findRecord, loadConversation, loadRecord, storeRecord } from './conversation-records.js';
import { evidenceMounted } from './evidence-mounted.js';
import { heldToolCall } from './held-tool-call.js';
import { agentSpawnRequest } from './spawn-request.js';
import { stepStreams } from './step-streams.js';
import { supervisorAnswer } from './supervisor-answer.js';
import { SUPERVISOR_SYSTEM, supervisorPrompt } from './supervisor-prompt.js';
import { agentToolCallStep } from './tool-call-step.js';
import { usageOf } from './usage-of.js';

export { type AgentActivityDependencies, TOOL_OUTPUT_BUDGET } from './agent-step-context.js';

const PREVIEW_CHARS = 300;
/** A stored list among an agent's inputs with at most this many entries is shown whole in its prompt. */
const PROMPT_LIST_ENTRIES = 100;

/**
 * The activities of a durable agent task, one per step: `agentStart` stores the brief and
 * the prompt, `agentModelStep` calls the model once, `agentToolCall` runs one tool call and
 * `agentFinish` hands in the task's outputs. Each stores its result under an idempotency key
 * derived from the agent workflow and the step before returning, and a retry (the worker
 * died) that finds it returns it without calling the model or the tool again.
 *
 * @example
 * ```ts
 * const activities = createAgentActivities({ store, artifacts, models, tools: {}, workDir, env: process.env,
 *   contexts: new SubagentContexts(store), mapItems: new MapItemReads(store) });
 * ```
 */
export function createAgentActivities(dependencies: AgentActivityDependencies): AgentActivities {
  const { store, artifacts } = dependencies;

  return {
    async agentStart(input: AgentTaskInput): Promise<AgentStartResult> {
      const agent = input.agent;
      if (agent === undefined) {
        throw new WharfOrchestratorError('INVALID_DEFINITION', `task ${input.task} names no agent`);
      }
      const ids = agentIdentity(input);
      const briefKey = `${ids.emitKeyPrefix}/brief`;
      const promptKey = `${ids.emitKeyPrefix}/prompt`;
      const earlierBrief = await store.findByIdempotencyKey({ ...scopeOf(ids) }, briefKey);
      const earlierPrompt = await store.findByIdempotencyKey({ ...scopeOf(ids) }, promptKey);
      if (earlierBrief !== undefined && earlierPrompt !== undefined) {
        return { brief: earlierBrief.outId, conversation: [earlierPrompt.outId], maxSteps: agent.max_steps };
      }
      // The worker's own overrides (WHARF_MODEL) win; the brief keeps the model every step uses.
      const model =
        dependencies.models.modelFor?.({
          model: agent.model,
          agent: input.definition.agent,
          supervisor: input.supervisor !== undefined,
        }) ?? agent.model;
      // Bad definitions fail here, before anything is paid for.
      dependencies.models.resolve(model);
      const unknown = unknownToolNames(agent.tools, dependencies.tools);
      if (unknown.length > 0) {
        throw new WharfOrchestratorError(
          'UNKNOWN_TOOL',
          `task ${input.task} (agent ${input.definition.agent ?? '?'}): unknown tool ${unknown.map((name) => `"${name}"`).join(', ')}; tools on this worker: ${Object.keys(dependencies.tools).join(', ') || 'built-ins only'}`,
        );
      }
      const startedAt = new Date();
      // A stored map item is read now; a stored list among the inputs is shown whole when short.
      const inputs = await instanceInputs(input, store, {
        expandUpTo: PROMPT_LIST_ENTRIES,
        signal: Context.current().cancellationSignal,
        itemReads: dependencies.mapItems,
      });
      const manifests = [
        ...(input.inManifests ?? []),
        // Loops the context shows only some outputs of: the rest are listed by their manifests.
        ...(input.context?.loops ?? []).flatMap((note) =>
          note.manifest === undefined ? [] : [note.manifest],
        ),
        ...Object.values(inputs)
          .filter(isStoredListValue)
          .map((list) => list.$manifest),
      ];
      const brief: AgentBrief = {
        swarm: input.swarm,
        task: input.task,
        instance: input.instance,
        // As subagentIds counts it: every instance of a map loop is a job of its own.
        looped: isLooped(input.definition),
        workflowId: input.workflowId,
        ownerId: input.ownerId,
        model,
        ...(agent.system !== undefined
          ? { system: agent.system }
          : input.supervisor !== undefined
            ? { system: SUPERVISOR_SYSTEM }
            : {}),
        tools: agent.tools,
        ...(agent.tool_approvals === undefined ? {} : { toolApprovals: agent.tool_approvals }),
        maxSteps: agent.max_steps,
        limits: { ...(input.limits ?? {}), ...(input.definition.limits ?? {}) },
        sandbox: mergeSandboxSettings(input.sandbox, input.definition.sandbox),
        ...(input.workdir === undefined ? {} : { workdir: input.workdir }),
        readable: [
          ...input.inRefs,
          ...manifests,
          ...(input.context?.entries ?? []).map((entry) => entry.outId),
        ],
        inRefs: input.inRefs,
        // A stored list names outputs of the whole run: its chunks and what they list.
        ...(manifests.length > 0 ? { readRun: true } : {}),
        ...(input.readRuns === undefined || input.readRuns.length === 0 ? {} : { readRuns: input.readRuns }),
        ...(input.spawnable === undefined ? {} : { spawnable: Object.keys(input.spawnable) }),
        startedAt: startedAt.toISOString(),
        ...(input.supervisor === undefined ? {} : { evidenceBudgetBytes: input.supervisor.budgetBytes }),
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
      const context = await dependencies.contexts.render(input.context);
      const prompt = await storeRecord(store, ids, {
        key: promptKey,
        task: input.task,
        name: `${ids.jobId}.prompt.json`,
        record: {
          messages: [
            {
              role: 'user',
              content:
                input.supervisor === undefined
                  ? agentPrompt({ ...input, inputs }, context?.text)
                  : supervisorPrompt(input.supervisor.question, input.supervisor.compacts),
            },
          ],
        },
      });
      return { brief: briefRef.outId, conversation: [prompt], maxSteps: agent.max_steps };
    },

    async agentModelStep(input: AgentStepInput): Promise<AgentModelStepResult> {
      const { brief, ids } = await loadBrief(store, input.brief);
      const key = `${ids.emitKeyPrefix}/step-${input.step}`;
      const earlier = await findRecord(store, ids, key);
      if (earlier?.record.model !== undefined) return stepResult(earlier.outId, earlier.record.model);

      const model = dependencies.models.resolve(brief.model);
      let evidenceBytes: number | undefined;
      const mounted =
        brief.evidenceBudgetBytes === undefined
          ? model
          : evidenceMounted(model, {
              compiler: new EvidenceCompiler({ store: artifacts }),
              runId: ids.runId,
              ownerId: ids.ownerId,
              // A re-run's supervisor mounts the evidence of the tasks it reused too.
              readRuns: (brief.readRuns ?? []).map(safeId),
              budgetBytes: brief.evidenceBudgetBytes,
              onMeasure: (bytes) => {
                evidenceBytes = Math.max(evidenceBytes ?? 0, bytes);
              },
            });
      const tools = agentTools(agentToolsOptions(dependencies, brief, ids, { emitKey: `${key}/offered` }));
      const messages = await loadConversation(store, input.conversation);
      const context = Context.current();
      // The answer is streamed into the store as it comes, one stream per attempt of the step.
      const streams = stepStreams(store, {
        producer: { ...scopeOf(ids), agent: brief.model },
        key,
        attempt: context.info.attempt,
        name: `${ids.jobId}.step-${input.step}.md`,
        labels: { task: brief.task, instance: String(brief.instance), source: 'step-text' },
        warn: (message) => context.log.warn(`task ${brief.task} step ${input.step}: ${message}`),
      });
      // What `WharfClient.progress` shows for a running agent: the steps it finished so far,
      // and the streams its answer is being written to.
      const heartbeat: SubagentHeartbeat = {
        task: brief.task,
        ...(brief.looped ? { instance: brief.instance } : {}),
        step: input.step,
        ...toolCallsSoFar(messages),
        stream: streams.text,
        toolInputStream: streams.toolInput,
      };
      context.heartbeat(heartbeat);
      const result = await heartbeatWhile(
        context,
        () =>
          generateText({
            model: streamedGenerate(mounted, streams.sink),
            ...(brief.system === undefined ? {} : { system: brief.system }),
            messages,
            tools: offeredTools(tools),
            // Temporal retries the step (after a provider's Retry-After): never twice over.
            maxRetries: 0,
            abortSignal: context.cancellationSignal,
            ...modelCallTelemetry(dependencies.tracing, 'wharf.agent-model-step'),
          }),
        heartbeat,
      ).catch(async (error: unknown) => {
        await streams.fail(error instanceof Error ? error.message : String(error));
        throw error;
      });
      await streams.finish();
      const usage = usageOf(result.usage, dependencies.models.price?.(brief.model));
      const meta = {
        toolCalls: result.toolCalls
          .filter((call) => call.invalid !== true && call.providerExecuted !== true)
          .map((call) =>
            heldToolCall(brief, { toolCallId: call.toolCallId, toolName: call.toolName }, call.input),
          ),
        calledTools: result.toolCalls.length > 0,
        finishReason: result.finishReason,
        usage,
        text: result.text,
        ...(evidenceBytes === undefined ? {} : { evidenceBytes }),
      };
      const outId = await storeRecord(store, ids, {
        key,
        task: brief.task,
        name: `${ids.jobId}.step-${input.step}.json`,
        record: { messages: result.response.messages as ModelMessage[], model: meta },
      });
      return stepResult(outId, meta);
    },

    agentToolCall: (input) => agentToolCallStep(dependencies, input),

    agentSpawnRequest: (input) => agentSpawnRequest(dependencies, input),

    async agentFinish(input: AgentFinishInput): Promise<SubagentResult> {
      const { brief, ids } = await loadBrief(store, input.brief);
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
      const supervisor: SuperviseResult | undefined =
        brief.evidenceBudgetBytes === undefined
          ? undefined
          : {
              ...(input.error !== undefined
                ? { answer: '', error: input.error }
                : await supervisorAnswer(store, {
                    text,
                    ownerId: ids.ownerId,
                    runId: ids.runId,
                    model: brief.model,
                    idempotencyKey: `${ids.emitKeyPrefix}/answer`,
                  })),
              evidenceBytes: input.evidenceBytes ?? 0,
              ...(input.usage.calls > 0 ? { usage: input.usage } : {}),
            };
      return subagentResult(artifacts, ids, {
        failed,
        outputs,
        bytes,
        durationMs,
        summary,
        preview: Array.from(summary).slice(0, PREVIEW_CHARS).join(''),
        stderrTail: input.error,
        ...(input.usage.calls > 0 ? { usage: input.usage } : {}),
        ...(supervisor === undefined ? {} : { supervisor }),
      });
    },
  };
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
    evidenceBytes?: number | undefined;
  },
): AgentModelStepResult {
  return {
    record,
    toolCalls: meta.toolCalls,
    finishReason: meta.calledTools && meta.toolCalls.length === 0 ? 'invalid-tool-calls' : meta.finishReason,
    usage: meta.usage,
    textBytes: Buffer.byteLength(meta.text),
    ...(meta.evidenceBytes === undefined ? {} : { evidenceBytes: meta.evidenceBytes }),
  };
}

/** The names of the last tool calls in a conversation, oldest first, for heartbeats. */
function toolCallsSoFar(messages: readonly ModelMessage[]): { toolCalls?: string[] } {
  const names: string[] = [];
  for (const message of messages) {
    if (message.role !== 'assistant' || typeof message.content === 'string') continue;
    for (const part of message.content) if (part.type === 'tool-call') names.push(part.toolName);
  }
  return names.length === 0 ? {} : { toolCalls: names.slice(-5) };
}
