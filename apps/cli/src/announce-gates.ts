import { setTimeout as sleep } from 'node:timers/promises';
import type { SwarmProgress } from '@wharf/orchestrator';
import type { WharfClient } from '@wharf/orchestrator/client';
import type { CliIo } from './output.js';

/**
 * The gated tasks of `progress` whose approval waits for a person now (the gate opened, no
 * answer yet) and that are not in `announced`, in task order; they are added to it. A gate that
 * never opens (its task skipped by `when:` or a failed dependency) is never among them.
 *
 * @example
 * ```ts
 * const announced = new Set<string>();
 * newlyWaitingGates(progress, announced); // ['publish'] once publish's gate opened, then []
 * ```
 */
export function newlyWaitingGates(progress: SwarmProgress, announced: Set<string>): string[] {
  const opened = progress.tasks
    .filter(
      (task) =>
        task.status === 'waiting' &&
        task.approval?.requestedAt !== undefined &&
        task.approval.decision === undefined &&
        !announced.has(task.task),
    )
    .map((task) => task.task);
  for (const task of opened) announced.add(task);
  return opened;
}

/**
 * Says on stderr, once per gated task, that it waits for approval and the command that answers
 * it, when its gate actually opens (read from the swarm's progress every `intervalMs`, default
 * 1 s, until `until` settles): `wharf run` announces no gate that is skipped later. A progress
 * read that fails is left to the next one.
 *
 * @example
 * ```ts
 * await announceGates(wharf, workflowId, { until, io, approveCommand: approveCommandFor(workflowId, address) });
 * ```
 */
export async function announceGates(
  wharf: Pick<WharfClient, 'progress'>,
  workflowId: string,
  options: {
    until: Promise<unknown>;
    io: CliIo;
    approveCommand: (task: string) => string;
    intervalMs?: number;
  },
): Promise<void> {
  let finished = false;
  const settle = () => {
    finished = true;
  };
  void options.until.then(settle, settle);
  const announced = new Set<string>();
  while (!finished) {
    const progress = await wharf.progress(workflowId).catch(() => undefined);
    if (progress !== undefined && !finished)
      for (const task of newlyWaitingGates(progress, announced))
        options.io.err(
          `wharf: ${task} waits for approval; answer with: ${options.approveCommand(task)} [--reject] [--comment …]`,
        );
    await Promise.race([sleep(options.intervalMs ?? 1_000), options.until.catch(() => {})]);
  }
}
