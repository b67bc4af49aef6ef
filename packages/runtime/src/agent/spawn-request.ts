import type { AgentToolCallInput, SpawnRequest } from '@wharf/swarm';
import { spawnWorkerToolName } from '@wharf/swarm';
import { type AgentActivityDependencies, loadBrief } from './agent-step-context.js';
import { findToolCall, loadRecord } from './conversation-records.js';
import { SPAWN_INPUTS_MAX_BYTES, spawnWorkerInputSchema } from './spawn-worker-tool.js';

/**
 * The `agentSpawnRequest` activity: reads the input of one `spawn_worker` call from its
 * stored step and checks it. A bad call is not a failure of the task: the model is told why
 * (as the result of its call) and goes on.
 *
 * @example
 * ```ts
 * const request = await agentSpawnRequest(dependencies, { brief, step: 0, record, toolCallId, seq: 1 });
 * ```
 */
export async function agentSpawnRequest(
  dependencies: Pick<AgentActivityDependencies, 'store'>,
  input: AgentToolCallInput,
): Promise<SpawnRequest | { error: string }> {
  const { brief } = await loadBrief(dependencies.store, input.brief);
  const step = await loadRecord(dependencies.store, input.record);
  const call = findToolCall(step.messages, input.toolCallId);
  if (call === undefined || call.toolName !== spawnWorkerToolName) {
    return { error: `step ${input.step} has no ${spawnWorkerToolName} call ${input.toolCallId}` };
  }
  const spawnable = brief.spawnable ?? [];
  if (spawnable.length === 0) {
    return { error: `task ${brief.task} may not spawn workers (spawned workers cannot spawn)` };
  }
  const parsed = spawnWorkerInputSchema(spawnable).safeParse(call.input);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'input'}: ${issue.message}`);
    return { error: `invalid ${spawnWorkerToolName} input: ${issues.join('; ')}` };
  }
  const inputs = parsed.data.inputs ?? {};
  const inputsBytes = Buffer.byteLength(JSON.stringify(inputs));
  if (inputsBytes > SPAWN_INPUTS_MAX_BYTES) {
    return {
      error: `invalid ${spawnWorkerToolName} input: inputs are ${inputsBytes} bytes, at most ${SPAWN_INPUTS_MAX_BYTES}; pass out ids, not bodies`,
    };
  }
  return { agent: parsed.data.agent, prompt: parsed.data.prompt, inputs };
}
