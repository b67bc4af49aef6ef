import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { Context } from '@temporalio/activity';
import { CancelledFailure } from '@temporalio/common';
import type { OutputRef } from '@wharf/output-store';
import { resolveLimits, StdioLimitsError, truncateOutput } from '@wharf/stdio-limits';
import type { AgentToolCallInput, AgentToolCallResult, SubagentHeartbeat } from '@wharf/swarm';
import { WharfOrchestratorError } from '@wharf/swarm';
import { heartbeatWhile } from '../activities/heartbeat-while.js';
import { spillDirectory } from '../activities/spill-directory.js';
import {
  type AgentActivityDependencies,
  agentToolsOptions,
  loadBrief,
  TOOL_OUTPUT_BUDGET,
} from './agent-step-context.js';
import { agentTools } from './agent-tools.js';
import { findRecord, findToolCall, loadRecord, storeRecord } from './conversation-records.js';
import { isToolOutput, type ToolOutput } from './tool-output.js';

/**
 * The `agentToolCall` activity: runs one tool call of a stored model step (unless a previous
 * attempt already recorded it), records its full output in the artifact store, EMITs it
 * whole when it is over {@link TOOL_OUTPUT_BUDGET}, and stores the tool-result message the
 * model sees next: the output cut with exact markers, plus the ref of the whole.
 *
 * @example
 * ```ts
 * const result = await agentToolCallStep(dependencies, { brief, step: 0, record, toolCallId, seq: 1 });
 * ```
 */
export async function agentToolCallStep(
  dependencies: AgentActivityDependencies,
  input: AgentToolCallInput,
): Promise<AgentToolCallResult> {
  const { store, artifacts } = dependencies;
  const { brief, ids } = await loadBrief(store, input.brief);
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
  // What `WharfClient.progress` shows for a running agent: its step and the tool it runs.
  const heartbeat: SubagentHeartbeat = {
    task: brief.task,
    ...(brief.looped ? { instance: brief.instance } : {}),
    step: input.step,
    toolCalls: [call.toolName],
  };
  const spillDir = spillDirectory(
    dependencies.workDir,
    ids.workerId,
    `tool-${input.seq}-attempt-${context.info.attempt}`,
  );
  let emitted: OutputRef | undefined;
  const tools = agentTools({
    ...agentToolsOptions(dependencies, brief, ids, {
      emitKey: `${ids.emitKeyPrefix}/emit/${input.step}/${input.toolCallId}`,
      spillDir,
      heartbeat,
      ...(input.spawned === undefined ? {} : { spawned: input.spawned }),
    }),
    onEmit: (ref) => {
      emitted = ref;
    },
  });
  const began = new Date();
  context.heartbeat(heartbeat);
  let outcome: ToolOutput;
  if (input.rejected !== undefined) {
    // Held for a person and not approved: the tool does not run; the model reads why.
    const message = `not run: this ${call.toolName} call was ${input.rejected}`;
    outcome = { text: message, full: message, failed: true };
  } else {
    try {
      const chosen = tools[call.toolName];
      if (chosen?.execute === undefined) throw new Error(`no tool named ${call.toolName}`);
      const execute = chosen.execute as (input: unknown, options: unknown) => unknown;
      const run = async () =>
        lastValue(
          await execute(call.input, {
            toolCallId: input.toolCallId,
            messages: [],
            abortSignal: context.cancellationSignal,
          }),
        );
      const traced = dependencies.tracing;
      const value = await heartbeatWhile(
        context,
        traced === undefined
          ? run
          : () => traced.traceToolCall({ toolName: call.toolName, toolCallId: input.toolCallId }, run),
        heartbeat,
      );
      outcome = isToolOutput(value) ? value : { text: asText(value), full: asText(value) };
    } catch (error) {
      if (context.cancellationSignal.aborted) throw new CancelledFailure(`tool ${call.toolName} cancelled`);
      // The command was lost with the helper that started it, not failed: the step runs again.
      if (StdioLimitsError.isInstance(error) && error.code === 'SPAWN_HELPER_DIED') throw error;
      const message = `error: ${(error as Error).message}`;
      outcome = { text: message, full: message, failed: true };
    }
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
  const fullBytes = typeof outcome.full === 'string' ? Buffer.byteLength(outcome.full) : outcome.full.bytes;
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
