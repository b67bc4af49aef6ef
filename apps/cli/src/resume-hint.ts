import { resumeCommand } from './run-hints.js';

/**
 * The line `wharf run` prints once a swarm started: its subagents run on this process's own
 * task queue, and the command that gives the run a worker again should this process stop first.
 *
 * @example
 * ```ts
 * io.err(resumeHint('repo-health-…', { taskQueue, address, startedServer }, '.wharf'));
 * ```
 */
export function resumeHint(
  workflowId: string,
  embedded: { taskQueue: string; address: string; startedServer: boolean },
  dataDir: string,
): string {
  const command = resumeCommand(workflowId, { ...embedded, dataDir });
  return `wharf: its subagents run in this process (task queue ${embedded.taskQueue}); if it stops first, give the run a worker again with: ${command}`;
}
