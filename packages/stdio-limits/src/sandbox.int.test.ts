import { readdirSync, readFileSync, realpathSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CaptureProcessOptions, captureProcess } from './capture-process.js';
import { directSpawner, type ProcessSpawner } from './process-spawner.js';
import { Sandbox } from './sandbox.js';
import { SANDBOX_UID, type SandboxPolicy } from './sandbox-policy.js';
import { SpawnServer } from './spawn-server.js';

const detected = Sandbox.detect();
// In CI a missing sandbox is a failure, not a skip: CI installs bubblewrap (.ci/toolchain.sh).
const ci = process.env.CI === 'true';
it.runIf(ci)('finds a sandbox in CI', () => {
  expect(detected.reason).toBeUndefined();
});

/** Whether a process runs (a zombie waiting for its parent to reap it counts as gone). */
const alive = (pid: number) => {
  try {
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z');
  } catch {
    return false;
  }
};

let root: string;
let workdir: string;
let dataDir: string;
let otherWorkdir: string;
let inputFile: string;
let listener: Server;
let port: number;
const server = new SpawnServer();
beforeAll(async () => {
  // In the checkout, which the sandbox shows read-only (under /tmp too, as one of its programs):
  // not in a /tmp of its own, which it replaces anyway. The policy alone must keep these out.
  root = await mkdtemp(join(process.cwd(), '.sandbox-test-'));
  workdir = join(root, 'work');
  dataDir = join(workdir, '.wharf');
  otherWorkdir = join(root, 'other');
  await mkdir(join(dataDir, 'spill'), { recursive: true });
  await mkdir(otherWorkdir);
  await writeFile(join(dataDir, 'secret'), 'intake-signing-key');
  await writeFile(join(otherWorkdir, 'notes.txt'), 'other task');
  inputFile = join(dataDir, 'spill', 'context.txt');
  await writeFile(inputFile, 'the context');
  listener = createServer((socket) => socket.end('reached\n'));
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  port = (listener.address() as { port: number }).port;
});
afterAll(async () => {
  await server.close();
  await new Promise((resolve) => listener.close(resolve));
  await rm(root, { recursive: true, force: true });
});

describe.skipIf(detected.sandbox === undefined && !ci).each<[string, ProcessSpawner]>([
  ['directly', directSpawner],
  ['through a SpawnServer', server],
])('Sandbox (%s)', (_, spawner) => {
  const sandbox = detected.sandbox as Sandbox;
  const policy = (): SandboxPolicy => ({
    writable: [workdir],
    hidden: [dataDir, otherWorkdir],
    readable: [inputFile],
    // The checkout these tests run from, as a worker shows its own install: read-only, also
    // when it lies under /tmp (then `root`, inside it, is read-only too, as elsewhere).
    programs: [process.cwd()],
  });
  const run = (script: string, options: CaptureProcessOptions & { policy?: SandboxPolicy } = {}) =>
    captureProcess('sh', {
      args: ['-c', script],
      cwd: workdir,
      spawner,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', PLANTED: 'worker-secret' },
      sandbox: { sandbox, policy: options.policy ?? policy() },
      limits: { drain_timeout_ms: 2_000 },
      ...options,
    });

  it('runs as nobody in its own PID namespace: the worker and its environment are out of sight', async () => {
    const result = await run(
      `id -u; echo "$PLANTED"; ls /proc | grep -c '^[0-9]'; cat /proc/${process.pid}/environ 2>&1 | head -c 200 || true`,
    );
    const [uid, planted, processes, environ] = result.stdout.text.split('\n');
    expect(result.exitCode).toBe(0);
    expect(uid).toBe(String(SANDBOX_UID));
    // What it was given comes through; nothing of the worker's does.
    expect(planted).toBe('worker-secret');
    expect(Number(processes)).toBeLessThan(8);
    expect(environ).not.toContain('=');
  });

  it('hides the data directory and other work directories; shows the input files it is given', async () => {
    const result = await run(
      `cat .wharf/secret; ls -A .wharf; ls -A ${otherWorkdir}; cat ${inputFile}; echo; echo planted > ${join(dataDir, 'planted.json')}`,
    );
    expect(result.stdout.text).toBe('spill\nthe context\n');
    // What it writes there stays in the sandbox's empty directory.
    await expect(readFile(join(dataDir, 'planted.json'), 'utf8')).rejects.toThrow(/ENOENT/);
    expect(await readFile(join(dataDir, 'secret'), 'utf8')).toBe('intake-signing-key');
  });

  it('writes to its work directory and to its own /tmp only', async () => {
    const result = await run(
      `echo made > made.txt && echo tmp > /tmp/x && cat /tmp/x && (echo no > ${join(root, 'outside.txt')}) 2>/dev/null || echo refused`,
    );
    expect(result.stdout.text).toBe('tmp\nrefused\n');
    expect(await readFile(join(workdir, 'made.txt'), 'utf8')).toBe('made\n');
    await expect(readFile(join(root, 'outside.txt'), 'utf8')).rejects.toThrow(/ENOENT/);
  });

  it('has no network unless the policy allows it', async () => {
    const connect = `require('net').connect(${port}, '127.0.0.1').on('data', (d) => process.stdout.write(d)).on('error', (e) => console.log(e.code))`;
    const closed = await captureProcess(process.execPath, {
      args: ['-e', connect],
      cwd: workdir,
      spawner,
      sandbox: { sandbox, policy: policy() },
    });
    expect(closed.stdout.text).toBe('ECONNREFUSED\n');
    const open = await captureProcess(process.execPath, {
      args: ['-e', connect],
      cwd: workdir,
      spawner,
      sandbox: { sandbox, policy: { ...policy(), network: 'allow' } },
    });
    expect(open.stdout.text).toBe('reached\n');
  });

  it('ends a setsid grandchild when the command exits, cgroup or not', async () => {
    // The grandchild's host pid is not visible inside: find it by its unique command line.
    const marker = `${Date.now() % 100_000}`;
    // Without a cgroup, as where the worker may not create one: the PID namespace alone does it.
    const result = await run(
      `setsid sh -c 'exec sleep 3${marker}' </dev/null >/dev/null 2>&1 & echo started`,
      {
        cgroup: false,
      },
    );
    expect(result.stdout.text).toBe('started\n');
    expect(result.drainTimedOut).toBe(false);
    // The kernel kills the namespace's processes as its first process exits, bwrap may report the
    // exit a moment before they are gone: allow that moment, far less than a grace period.
    let escaped = findProcess(`sleep 3${marker}`).filter(alive);
    for (let tries = 0; tries < 20 && escaped.length > 0; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      escaped = escaped.filter(alive);
    }
    expect(escaped).toEqual([]);
  });

  it('applies the memory and CPU limits', async () => {
    const memory = await captureProcess(process.execPath, {
      args: ['-e', 'const kept = []; for (;;) kept.push(Buffer.alloc(1 << 20, 1));'],
      cwd: workdir,
      spawner,
      sandbox: { sandbox, policy: { ...policy(), maxMemoryBytes: 256 * 1024 * 1024 } },
      timeoutMs: 20_000,
    });
    expect(memory.timedOut).toBe(false);
    expect(memory.exitCode === 0).toBe(false);
    const cpu = await run('while :; do :; done', {
      policy: { ...policy(), maxCpuSeconds: 1 },
      timeoutMs: 20_000,
    });
    expect(cpu.timedOut).toBe(false);
    expect(cpu.exitCode === 0).toBe(false);
  });

  it('runs a program installed under /tmp, importing from beside it, and sees nothing else of /tmp', async () => {
    const install = await mkdtemp('/tmp/wharf-install-');
    const other = await mkdtemp('/tmp/wharf-other-');
    try {
      await writeFile(join(install, 'answer.mjs'), 'export const answer = 42;\n');
      await writeFile(
        join(install, 'main.mjs'),
        [
          "import { existsSync, readdirSync } from 'node:fs';",
          "import { answer } from './answer.mjs';",
          `console.log(answer, existsSync(${JSON.stringify(join(other, 'secret'))}), readdirSync('/tmp').sort().join(','));`,
        ].join('\n'),
      );
      await writeFile(join(other, 'secret'), 'another user');
      const node = dirname(realpathSync(process.execPath));
      const start = (programs: string[]) =>
        captureProcess(process.execPath, {
          args: [join(install, 'main.mjs')],
          cwd: workdir,
          spawner,
          sandbox: { sandbox, policy: { writable: [workdir], programs: [...programs, node] } },
        });
      const result = await start([install]);
      expect(result.stderr.text).toBe('');
      // Of the host's /tmp only the ways to the install and the work directory (in a checkout
      // under /tmp) show: no other directory of it.
      const shown = [install, workdir]
        .filter((path) => path.startsWith('/tmp/'))
        .map((path) => path.split('/')[2] as string);
      expect(result.stdout.text).toBe(`42 false ${[...new Set(shown)].sort().join(',')}\n`);
      // Without the install among its programs, the private /tmp hides it.
      const hidden = await start([]);
      expect(hidden.exitCode).not.toBe(0);
      expect(hidden.stderr.text).toContain(`Cannot find module '${join(install, 'main.mjs')}'`);
    } finally {
      await rm(install, { recursive: true, force: true });
      await rm(other, { recursive: true, force: true });
    }
  });

  it('reaches a Unix socket bound in at a fixed path', async () => {
    const socketPath = join(root, `s-${spawner === directSpawner ? 'd' : 'h'}.sock`);
    const unix = createServer((socket) => socket.end('over the socket\n'));
    await new Promise<void>((resolve) => unix.listen(socketPath, resolve));
    try {
      const result = await captureProcess(process.execPath, {
        args: [
          '-e',
          `require('net').connect('/run/wharf/intake.sock').on('data', (d) => process.stdout.write(d))`,
        ],
        cwd: workdir,
        spawner,
        sandbox: {
          sandbox,
          policy: { ...policy(), sockets: [{ source: socketPath, target: '/run/wharf/intake.sock' }] },
        },
      });
      expect(result.stdout.text).toBe('over the socket\n');
    } finally {
      await new Promise((resolve) => unix.close(resolve));
    }
  });
});

/** Host pids of processes whose command line is `command`. */
function findProcess(command: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').join(' ').trim() === command)
        found.push(Number(name));
    } catch {
      // gone
    }
  }
  return found;
}
