import type { SpawnedWorker } from '@wharf/swarm';
import { spawnWorkerToolName } from '@wharf/swarm';
import { type Tool, tool } from 'ai';
import { z } from 'zod';
import type { AgentBrief } from './agent-brief.js';

/** Longest prompt a `spawn_worker` call may give (it travels in the child's start event). */
export const SPAWN_PROMPT_MAX_CHARS = 16_000;
/** Most bytes of JSON `inputs` a `spawn_worker` call may give. */
export const SPAWN_INPUTS_MAX_BYTES = 8_000;

/** What the model is told of `spawn_worker`. */
export const spawnWorkerDescription =
  "Start a worker (one of this swarm's agents) on a sub-task and wait for it. You get back its compact result: status, tool index, a one-line summary, an evidence marker and the out ids of its outputs (read one whole with read_input).";

/**
 * The input schema of `spawn_worker` for an agent that may start `agents`.
 *
 * @example
 * ```ts
 * spawnWorkerInputSchema(['checker']).parse({ agent: 'checker', prompt: 'Check a.ts' });
 * ```
 */
export function spawnWorkerInputSchema(agents: readonly string[]) {
  const agent = agents.length > 0 ? z.enum(agents as [string, ...string[]]) : z.never();
  return z.object({
    agent: agent.describe(`The worker's agent: one of ${agents.join(', ') || '(none)'}`),
    prompt: z.string().min(1).max(SPAWN_PROMPT_MAX_CHARS).describe('What the worker should do'),
    inputs: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('Small JSON values the worker is given (refs, names), never bodies'),
  });
}

/**
 * The `spawn_worker` tool of one agent task. The agent workflow runs the worker as a child
 * workflow and hands its result in as `spawned`; only then does `execute` answer, with the
 * text the model sees (see {@link formatSpawnedWorker}).
 *
 * @example
 * ```ts
 * const tools = { spawn_worker: spawnWorkerTool(brief, spawned) };
 * ```
 */
export function spawnWorkerTool(brief: AgentBrief, spawned: SpawnedWorker | undefined): Tool {
  return tool({
    description: spawnWorkerDescription,
    inputSchema: spawnWorkerInputSchema(brief.spawnable ?? []),
    execute: async () => {
      if (spawned === undefined) throw new Error(`${spawnWorkerToolName} runs in the agent workflow`);
      if ('error' in spawned) throw new Error(spawned.error);
      return formatSpawnedWorker(spawned);
    },
  });
}

/**
 * What the model is shown of a worker it spawned: the child workflow, its status, the out
 * ids of its outputs and its compact payload. Never an output's body.
 *
 * @example
 * ```ts
 * formatSpawnedWorker({ workflowId: 'r/agent/lead/spawn/1', agent: 'checker', status: 'ok', compact, outputs: ['out_1'] });
 * ```
 */
export function formatSpawnedWorker(spawned: Exclude<SpawnedWorker, { error: string }>): string {
  return [
    `Spawned worker ${spawned.workflowId} (agent ${spawned.agent}): ${spawned.status}.`,
    `Outputs (read one whole with read_input): ${spawned.outputs.join(', ') || '(none)'}`,
    '',
    spawned.compact,
  ].join('\n');
}
