/**
 * The line `wharf run` prints once a swarm started: its subagents run on this process's own
 * task queue, and the command that gives the run a worker again should this process stop first.
 *
 * @example
 * ```ts
 * io.err(resumeHint('repo-health-…', { taskQueue, address }, '.wharf'));
 * ```
 */
export function resumeHint(
  workflowId: string,
  embedded: { taskQueue: string; address: string },
  dataDir: string,
): string {
  const options = [
    ...(dataDir === '.wharf' ? [] : [`--data-dir ${dataDir}`]),
    ...(embedded.address === '127.0.0.1:7233' ? [] : [`--address ${embedded.address}`]),
  ];
  return `wharf: its subagents run in this process (task queue ${embedded.taskQueue}); if it stops first, give the run a worker again with: wharf resume ${[workflowId, ...options].join(' ')}`;
}
