import type { LimitsInput } from '@wharf/stdio-limits';
import { sandboxSchema } from '@wharf/swarm';
import { z } from 'zod';

/**
 * What every step of one agent task needs, stored once by `agentStart` and read by ref: the
 * task's identity, its agent, limits, work directory and the outputs it may read.
 */
export const agentBriefSchema = z.object({
  swarm: z.string(),
  task: z.string(),
  instance: z.number().int(),
  looped: z.boolean(),
  /** The swarm's workflow id. */
  workflowId: z.string(),
  ownerId: z.string(),
  model: z.string(),
  system: z.string().optional(),
  tools: z.array(z.string()),
  /** By tool name: which calls wait for a person (`match`: argument patterns; absent: every call). */
  toolApprovals: z
    .record(z.string(), z.object({ match: z.record(z.string(), z.string()).optional() }))
    .optional(),
  maxSteps: z.number().int().positive(),
  limits: z.record(z.string(), z.unknown()),
  /** The task's sandbox settings (the swarm's with the task's own over them). */
  sandbox: sandboxSchema.optional(),
  workdir: z.string().optional(),
  /** IN_REFS and the outputs of the task's context: what `read_input` may read. */
  readable: z.array(z.string()),
  inRefs: z.array(z.string()),
  /** It reads stored lists: it may read any output of its run (their chunks and what they name). */
  readRun: z.boolean().optional(),
  /** A re-run's earlier runs: their outputs are read like the run's own. */
  readRuns: z.array(z.string()).optional(),
  /** The agents `spawn_worker` may start; absent when this task may not spawn. */
  spawnable: z.array(z.string()).optional(),
  startedAt: z.string(),
  /** Set for the swarm's supervisor: evidence markers are mounted under this many bytes before each model call. */
  evidenceBudgetBytes: z.number().int().positive().optional(),
});

/** One agent task's brief. */
export type AgentBrief = z.infer<typeof agentBriefSchema> & { limits: LimitsInput };

/** The fields `subagentIds` reads, from a brief. */
export function briefIdentity(brief: AgentBrief) {
  return {
    task: brief.task,
    instance: brief.instance,
    workflowId: brief.workflowId,
    ownerId: brief.ownerId,
    definition: brief.looped ? { loop: { type: 'repeat' as const, count: 2 } } : {},
  } as const;
}
