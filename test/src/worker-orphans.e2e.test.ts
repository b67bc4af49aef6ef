import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { chmod, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WharfClient } from '@wharf/orchestrator/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTestEnv, type TemporalTestEnv, taskQueueFor } from './temporal-env.js';

const workerMain = fileURLToPath(new URL('../../apps/worker/dist/main.js', import.meta.url));

/** Whether a process runs (a zombie waiting for its reaper counts as gone). */
function running(pid: number): boolean {
  try {
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z');
  } catch {
    return false;
  }
}

async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Starts `wharf-worker` as its own process, executed through its `#!` line as an installed bin
 * is, and waits for its `worker-start` log line (returned parsed).
 */
async function startWorkerProcess(
  env: Record<string, string>,
): Promise<{ child: ChildProcess; started: Record<string, unknown> }> {
  // A group of its own: `kill -9 -<pgid>` ends the worker and its spawn helper together.
  const child = spawn(workerMain, [], {
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: true,
  });
  let output = '';
  for await (const chunk of child.stdout ?? []) {
    output += String(chunk);
    if (output.includes('worker-start')) break;
  }
  child.stdout?.resume();
  const line = output.split('\n').find((text) => text.includes('"worker-start"')) ?? '{}';
  return { child, started: JSON.parse(line) as Record<string, unknown> };
}

describe('a worker killed with SIGKILL while a script runs', () => {
  let temporal: TemporalTestEnv;
  let dir: string;
  beforeAll(async () => {
    temporal = await connectTestEnv();
    dir = await mkdtemp(join(tmpdir(), 'wharf-orphans-'));
    // Executable, as installing the package makes its bin.
    await chmod(workerMain, 0o755);
  });
  afterAll(async () => {
    await temporal?.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** Starts a swarm whose one script leaves a background `sleep` and waits; answers both pids. */
  async function runLongScript(name: string, env: Record<string, string>) {
    const taskQueue = env.WHARF_TASK_QUEUE as string;
    const wharf = new WharfClient({ connection: temporal.client.connection, taskQueue });
    const pids = join(dir, `pids-${name}`);
    const { handle } = await wharf.startSwarm(
      `
name: orphans
tasks:
  long:
    script: { content: 'sleep 300 & echo $! >> ${pids}; echo $$ >> ${pids}; wait' }
`,
      {},
      { workflowId: `orphans-${taskQueue}` },
    );
    const worker = await startWorkerProcess(env);
    let script: number[] = [];
    await waitFor(async () => {
      script = (await readFile(pids, 'utf8').catch(() => '')).split('\n').filter(Boolean).map(Number);
      return script.length === 2;
    });
    return { handle, worker, script };
  }

  function workerEnv(name: string): Record<string, string> {
    return {
      TEMPORAL_ADDRESS: temporal.address,
      WHARF_DATA_DIR: join(dir, `data-${name}`),
      WHARF_TASK_QUEUE: taskQueueFor(`worker orphans ${name}`),
      // The process-group registry is what ends the scripts of an unconfined worker; a sandboxed
      // script dies with its worker (bwrap's --die-with-parent).
      WHARF_SANDBOX: 'off',
    };
  }

  it('ends the script at once when only the worker dies: its spawn helper sees it go', async () => {
    const env = workerEnv('worker');
    const { handle, worker, script } = await runLongScript('worker', env);
    try {
      worker.child.kill('SIGKILL');
      await once(worker.child, 'exit');
      await waitFor(() => !script.some(running), 10_000);
      expect(script.some(running)).toBe(false);
    } finally {
      await handle.terminate('test done');
      for (const pid of script.filter(running)) process.kill(pid, 'SIGKILL');
    }
  });

  it('leaves the script running when worker and helper die together, until the next worker starts, which kills it', async () => {
    const env = workerEnv('group');
    const { handle, worker, script } = await runLongScript('group', env);
    // Its #! line gave Node the worker's memory flags: a 1 GiB old generation and 16 MiB
    // semi-spaces (Node's own ceiling on this machine would be several GiB).
    expect(worker.started.heapLimitMiB).toBeGreaterThanOrEqual(1024);
    expect(worker.started.heapLimitMiB).toBeLessThanOrEqual(1024 + 3 * 16 + 16);
    // The script's group is recorded once its spawn has returned to the worker: kill the worker
    // after that (a worker killed with its helper in the instant between the two leaves the
    // script unrecorded, so no later worker can end it).
    // (The worker's journal holds an `add` line for the group: a process appends there, see
    // ProcessGroupRegistry.)
    const recorded = join(env.WHARF_DATA_DIR as string, 'process-groups', hostname());
    await waitFor(async () => {
      for (const file of await readdir(recorded).catch(() => [] as string[])) {
        if (!file.startsWith('journal-')) continue;
        const lines = (await readFile(join(recorded, file), 'utf8').catch(() => '')).split('\n');
        if (lines.some((line) => line.includes('"op":"add"'))) return true;
      }
      return false;
    });
    process.kill(-(worker.child.pid as number), 'SIGKILL');
    await once(worker.child, 'exit');
    // Nothing ends a script when its worker and its helper die outright: both processes are still there.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(script.every(running)).toBe(true);

    const { child: second } = await startWorkerProcess(env);
    try {
      await waitFor(() => !script.some(running), 10_000);
      expect(script.some(running)).toBe(false);
    } finally {
      await handle.terminate('test done');
      second.kill('SIGTERM');
      await once(second, 'exit');
      for (const pid of script.filter(running)) process.kill(pid, 'SIGKILL');
    }
  });
});
