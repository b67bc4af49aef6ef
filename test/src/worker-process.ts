import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { inject } from 'vitest';
import type { SwarmTestEnv } from './swarm-env.js';

/**
 * Starts a Wharf worker in a process of its own (a fixture script taking the Temporal
 * address, the task queue, the data directory and `extraArgs`), for tests that kill it; resolves once it
 * prints `worker-ready`. It runs the workflow bundle the global setup built for the run
 * (`WHARF_TEST_WORKFLOW_BUNDLE`) instead of bundling the workflow code again.
 */
export async function startWorkerProcess(
  env: SwarmTestEnv,
  script: string,
  extraArgs: readonly string[] = [],
): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [script, env.temporal.address, env.taskQueue, env.dir, ...extraArgs],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, WHARF_TEST_WORKFLOW_BUNDLE: inject('workflowBundlePath') ?? '' },
    },
  );
  let output = '';
  for await (const chunk of child.stdout ?? []) {
    output += String(chunk);
    if (output.includes('worker-ready')) break;
  }
  return child;
}

/**
 * Stops a worker {@link startWorkerProcess} started, with SIGTERM (it drains), and waits for it
 * to exit; nothing when there is none or it has exited already (a test killed it).
 */
export async function stopWorkerProcess(worker: ChildProcess | undefined): Promise<void> {
  if (worker === undefined || worker.exitCode !== null || worker.signalCode !== null) return;
  worker.kill('SIGTERM');
  await once(worker, 'exit');
}
