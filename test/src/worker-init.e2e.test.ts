import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WharfClient } from '@wharf/orchestrator/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTestEnv, type TemporalTestEnv, taskQueueFor } from './temporal-env.js';
import { workerImage } from './worker-image.js';

// The worker image runs the worker as PID 1 of its container. Processes that scripts leave
// behind and that outlive their parents are re-parented to PID 1, which must reap them when
// they exit: Node does not (it waits only for children it started), tini does. No Docker engine
// runs here, so the container is a PID namespace of its own (`unshare --pid --fork
// --mount-proc`, as root, else in a user namespace) running the Dockerfile's ENTRYPOINT and CMD.

const workerApp = fileURLToPath(new URL('../../apps/worker/', import.meta.url));
const workerMain = join(workerApp, 'dist', 'main.js');
const tini = '/usr/bin/tini';
const scripts = 12;
/** Grandchildren each script leaves: started in a subshell that exits at once, so orphaned. */
const orphansPerScript = 2;

/** The PID namespace a process is in (`pid:[4026…]`), undefined once it is gone. */
function pidNamespaceOf(pid: string | number): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/ns/pid`);
  } catch {
    return undefined;
  }
}

/** Zombies (`State: Z`) among the processes of the PID namespace `namespace`. */
function zombiesIn(namespace: string): number {
  let zombies = 0;
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    if (pidNamespaceOf(pid) !== namespace) continue;
    try {
      if (/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'))) zombies += 1;
    } catch {
      // Gone since the listing.
    }
  }
  return zombies;
}

async function waitFor<TValue>(read: () => TValue | undefined, timeoutMs = 30_000): Promise<TValue> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * What the image runs (its `ENTRYPOINT` and `CMD`), `/app` being the worker app here, or the
 * worker's entry alone, as an image without an init would.
 */
function containerCommand(asTheImage: boolean): string[] {
  if (!asTheImage) return [workerMain];
  const { entrypoint, cmd } = workerImage();
  return [...entrypoint, ...cmd].map((arg) =>
    arg.startsWith('/app/') ? join(workerApp, arg.slice(5)) : arg,
  );
}

/**
 * Starts `command` as a container would: PID 1 of a new PID namespace. Waits for the worker's
 * `worker-start` line; answers the namespace.
 */
async function startContainedWorker(
  command: readonly string[],
  env: Record<string, string>,
): Promise<{ child: ChildProcess; namespace: string }> {
  const unshare = ['--pid', '--fork', '--mount-proc', '--kill-child'];
  if (process.getuid?.() !== 0) unshare.unshift('--user', '--map-root-user');
  const child = spawn('unshare', [...unshare, ...command], {
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  for await (const chunk of child.stdout ?? []) {
    output += String(chunk);
    if (output.includes('worker-start')) break;
  }
  child.stdout?.resume();
  expect(output).toContain('worker-start');
  // unshare's only child is PID 1 of the new namespace.
  const init = await waitFor(() => {
    const children = readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim();
    return children === '' ? undefined : children.split(' ')[0];
  });
  const namespace = pidNamespaceOf(init);
  if (namespace === undefined || namespace === pidNamespaceOf(process.pid))
    throw new Error('the worker did not start in a PID namespace of its own');
  return { child, namespace };
}

describe('the worker as PID 1 of its container', () => {
  let temporal: TemporalTestEnv;
  let dir: string;
  beforeAll(async () => {
    if (!existsSync(tini))
      throw new Error(
        `${tini} is missing: install Debian's tini (source .ci/toolchain.sh && wharf_ensure_tini)`,
      );
    temporal = await connectTestEnv();
    dir = await mkdtemp(join(tmpdir(), 'wharf-init-'));
    // Executable, as installing the package makes its bin (the image runs it through its #! line).
    await chmod(workerMain, 0o755);
  });
  afterAll(async () => {
    await temporal?.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** Runs `scripts` script tasks that each leave orphans which exit; answers the zombies left. */
  async function zombiesAfterCaptures(asTheImage: boolean): Promise<number> {
    const name = asTheImage ? 'as the image' : 'without init';
    const taskQueue = taskQueueFor(`worker init ${name}`);
    const { child, namespace } = await startContainedWorker(containerCommand(asTheImage), {
      TEMPORAL_ADDRESS: temporal.address,
      WHARF_DATA_DIR: join(dir, asTheImage ? 'image' : 'bare'),
      WHARF_TASK_QUEUE: taskQueue,
      // Unconfined scripts: a sandboxed one runs under bwrap, whose own PID namespace reaps its
      // orphans. The zombies counted here are those an unsandboxed worker's scripts leave.
      WHARF_SANDBOX: 'off',
      ...(process.env.WHARF_CACHE_DIR === undefined ? {} : { WHARF_CACHE_DIR: process.env.WHARF_CACHE_DIR }),
    });
    try {
      const wharf = new WharfClient({ connection: temporal.client.connection, taskQueue });
      const orphans = Array.from({ length: orphansPerScript }, () => '(sleep 0.2 &)').join('; ');
      const tasks = Array.from(
        { length: scripts },
        (_, index) => `  capture-${index}:\n    script: { content: '${orphans}; echo captured ${index}' }`,
      );
      const { handle } = await wharf.startSwarm(
        `name: orphans\ntasks:\n${tasks.join('\n')}\n`,
        {},
        {
          workflowId: `init-${taskQueue}`,
        },
      );
      await handle.result();
      // Every orphan has exited by now; what nobody reaped is a zombie.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      return zombiesIn(namespace);
    } finally {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
  }

  it("leaves a zombie per exited orphan without an init, none as the image's ENTRYPOINT runs it", async () => {
    const bare = await zombiesAfterCaptures(false);
    const asTheImage = await zombiesAfterCaptures(true);
    expect({ bare, asTheImage }).toEqual({ bare: scripts * orphansPerScript, asTheImage: 0 });
  });
});
