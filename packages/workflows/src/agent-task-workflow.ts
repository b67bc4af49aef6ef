// A durable agent task. Deterministic: imports only @temporalio/workflow and pure modules.

import type { AgentTaskInput, SubagentResult } from '@wharf/swarm';
import { DEFAULT_MAX_SPAWNS, instanceLabel } from '@wharf/swarm';
import { driveAgent } from './agent-driver.js';
import { TemporalAgentPort } from './temporal-agent-port.js';

/**
 * Runs one agent task as a loop of activities: `agentStart` stores the brief and prompt, then
 * up to `max_steps` times `agentModelStep` calls the model once and every tool call it makes
 * runs as an `agentToolCall` of its own; `agentFinish` hands in the outputs. Each step stores
 * its result before it returns and a retried step returns what was stored, so a worker that
 * dies mid-task costs at most the step it was on: no finished model call is paid twice.
 * Only refs and small metadata pass through history (the conversation lives in the output
 * store), so its size depends on the number of steps, never on what was said.
 *
 * A `spawn_worker` call starts another of the swarm's agents as a child `agentTaskWorkflow`
 * (id `<this workflow>/spawn/<n>`), waits for it and hands the model the worker's compact
 * payload (status, tool index, summary, evidence marker, output refs) as the call's result.
 * At most `max_spawns` (default 8) per task; a spawned worker cannot spawn in turn.
 *
 * The swarm's supervisor runs here too when its agent has tools (`input.supervisor`): its
 * prompt is the workers' compact payloads, each model step mounts their evidence under the
 * budget just before the call, and the result carries its answer as `supervisor`.
 *
 * What the loop does next is decided by the pure `nextAgentStep` (`agent-loop/`); `driveAgent`
 * runs its commands against a {@link TemporalAgentPort}.
 *
 * @example
 * ```ts
 * const result = await executeChild(agentTaskWorkflow, { workflowId, args: [input] });
 * ```
 */
export async function agentTaskWorkflow(input: AgentTaskInput): Promise<SubagentResult> {
  const label = instanceLabel(input.task, input.definition, input.instance);
  // Built first: it registers the approveToolCall update before the first step.
  const port = new TemporalAgentPort(input, label, agentTaskWorkflow);
  return driveAgent(port, {
    label,
    maxSpawns: input.agent?.max_spawns ?? DEFAULT_MAX_SPAWNS,
    approvals: input.agent?.tool_approvals ?? {},
    spawnable: Object.keys(input.spawnable ?? {}),
    supervisor: input.supervisor !== undefined,
    dataPlane: input.dataPlane,
  });
}

export { agentWorkflowId } from '@wharf/swarm';
