import { setTimeout as sleep } from 'node:timers/promises';
import { pendingApprovals, type SwarmProgress } from '@wharf/orchestrator';
import type { WharfClient } from '@wharf/orchestrator/client';
import type { CliIo } from './output.js';

/**
 * The gated tasks of `progress` whose approval waits for a person now (the gate opened, no
 * answer yet) and that are not in `announced`, in task order; they are added to it. A gate of a
 * running `swarm:` task's child run (its progress under the task's `child`, as
 * `WharfClient.progress` reads it) is among them once it opens there, named
 * `<swarm task>.<inner task>` as `wharf approve <run>` takes it. A gate that never opens (its
 * task skipped by `when:` or a failed dependency) is never among them.
 *
 * @example
 * ```ts
 * const announced = new Set<string>();
 * newlyWaitingGates(progress, announced); // ['publish'] once publish's gate opened, then []
 * newlyWaitingGates(progress, announced); // ['notes.publish'] once the gate inside notes' child run opened
 * ```
 */
export function newlyWaitingGates(
  progress: Pick<SwarmProgress, 'tasks' | 'pendingToolCalls'>,
  announced: Set<string>,
): string[] {
  // Gates only: a held tool call is drawn by --follow and listed by `wharf status`.
  const opened = pendingApprovals(progress)
    .filter((gate) => gate.call === undefined && !announced.has(gate.task))
    .map((gate) => gate.task);
  for (const task of opened) announced.add(task);
  return opened;
}

/**
 * Says on stderr, once per gated task, that it waits for approval and the command that answers
 * it, when its gate actually opens (read from the swarm's progress every `intervalMs`, default
 * 1 s, until `until` settles), a gate inside a `swarm:` task's child run too (`notes.publish`):
 * `wharf run` announces no gate that is skipped later, nor a child's before it opens. A progress
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
