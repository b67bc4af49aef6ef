import { execSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureProcess, type ProcessCapture } from './capture-process.js';
import { processGroupAlive } from './process-group.js';
import { SpawnServer } from './spawn-server.js';
import { StdioLimitsError } from './stdio-limits-error.js';

const distEntry = fileURLToPath(new URL('../dist/index.js', import.meta.url));

describe('SpawnServer', () => {
  let dir: string;
  let spawner: SpawnServer;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wharf-spawn-server-'));
    spawner = new SpawnServer();
  });
  afterAll(async () => {
    await spawner.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('starts processes from its helper, and loses none of what fast ones print', async () => {
    const results: { index: number; capture: ProcessCapture }[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < 200) {
          const index = next++;
          const capture = await captureProcess('sh', {
            // Every other one prints nothing on stderr: an empty pipe ends before it is read.
            args: [
              '-c',
              `echo "out-${index} $PPID"; [ ${index % 2} = 1 ] && echo err-${index} >&2; exit ${index % 3}`,
            ],
            spawner,
          });
          results.push({ index, capture });
        }
      }),
    );
    expect(results).toHaveLength(200);
    for (const { index, capture } of results) {
      // Its parent is the helper, not this process.
      expect(capture.stdout.text).toBe(`out-${index} ${spawner.pid}\n`);
      expect(capture.stderr.text).toBe(index % 2 === 1 ? `err-${index}\n` : '');
      expect(capture.exitCode).toBe(index % 3);
      // Both pipes ended with the process, not at the drain timeout.
      expect(capture.drainTimedOut).toBe(false);
    }
    expect(spawner.pid).not.toBe(process.pid);
  });

  it("keeps its owner's environment out of its helper: a process gets only the environment it is given", async () => {
    process.env.WHARF_TEST_SPAWN_SECRET = 'owner-only';
    try {
      const own = new SpawnServer();
      const capture = await captureProcess('sh', {
        args: ['-c', 'echo "[$WHARF_TEST_SPAWN_SECRET]"'],
        env: { PATH: process.env.PATH },
        spawner: own,
      });
      expect(capture.stdout.text).toBe('[]\n');
      const environ = await readFile(`/proc/${own.pid}/environ`, 'utf8');
      expect(environ).not.toContain('WHARF_TEST_SPAWN_SECRET');
      // PATH (and LD_LIBRARY_PATH where set) and Node's own IPC variables, nothing else.
      const names = environ
        .split('\0')
        .filter(Boolean)
        .map((entry) => entry.split('=')[0] as string)
        .filter((name) => !name.startsWith('NODE_CHANNEL_') && name !== 'LD_LIBRARY_PATH');
      expect(names).toEqual(['PATH']);
      await own.close();
    } finally {
      delete process.env.WHARF_TEST_SPAWN_SECRET;
    }
  });

  it('passes stdin, the environment and cwd, and captures a big output whole', async () => {
    const piped = await captureProcess('sh', {
      args: ['-c', 'read line; echo "$line/$GREETING/$(pwd)"'],
      input: 'from stdin\n',
      env: { PATH: process.env.PATH, GREETING: 'hello' },
      cwd: dir,
      spawner,
    });
    expect(piped.stdout.text).toBe(`from stdin/hello/${dir}\n`);

    // 40 MB: past the 16 MiB where the stream reader takes over the pipe from Node.
    const big = await captureProcess('sh', {
      args: ['-c', 'yes 0123456789abcdefghijklmnopqrstuvwxyz | head -c 40000000'],
      limits: { external_storage_dir: dir, external_storage_threshold: 0, compress_external: false },
      spillName: 'big',
      spawner,
    });
    expect(big.stdout.totalBytes).toBe(40_000_000);
    const spilled = await readFile(join(dir, 'big.stdout.log'));
    const expected = Buffer.alloc(40_000_000, '0123456789abcdefghijklmnopqrstuvwxyz\n');
    expect(createHash('sha256').update(spilled).digest('hex')).toBe(
      createHash('sha256').update(expected).digest('hex'),
    );
  });

  it('reports a command that cannot start as SPAWN_FAILED, and kills one that runs too long', async () => {
    const error = await captureProcess('/no/such/command', { spawner, cgroup: false }).catch(
      (caught: unknown) => caught,
    );
    expect(StdioLimitsError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'SPAWN_FAILED' });
    expect((error as Error).message).toContain('ENOENT');

    const slow = await captureProcess('sh', {
      args: ['-c', 'echo started; sleep 30'],
      timeoutMs: 300,
      spawner,
    });
    expect(slow).toMatchObject({ timedOut: true, killedBy: 'timeout', signal: 'SIGTERM' });
    expect(slow.stdout.text).toBe('started\n');
  });

  it("outlives a Ctrl-C or a stop sent to its owner's whole group: its processes end as their owner decides", async () => {
    const running = captureProcess('sh', { args: ['-c', 'sleep 0.5; echo done'], spawner });
    for (let tries = 0; spawner.pid === undefined && tries < 100; tries++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    const helper = spawner.pid as number;
    await new Promise((resolve) => setTimeout(resolve, 100));
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.kill(helper, signal);
    const capture = await running;
    expect(capture).toMatchObject({ exitCode: 0, signal: null });
    expect(capture.stdout.text).toBe('done\n');
    expect(spawner.pid).toBe(helper);
  });

  it('kills what it started when its helper dies, and starts a new helper for the next process', async () => {
    const warnings: string[] = [];
    const watched = new SpawnServer({ onWarning: (message) => warnings.push(message) });
    try {
      const running = captureProcess('sh', { args: ['-c', 'echo up; sleep 30'], spawner: watched });
      for (let tries = 0; watched.pid === undefined && tries < 100; tries++)
        await new Promise((resolve) => setTimeout(resolve, 20));
      const first = watched.pid as number;
      await new Promise((resolve) => setTimeout(resolve, 300));
      process.kill(first, 'SIGKILL');
      const capture = await running;
      expect(capture).toMatchObject({ exitCode: null, signal: 'SIGKILL' });
      expect(capture.stdout.text).toBe('up\n');
      expect(processGroupAlive(capture.pid as number)).toBe(false);
      expect(warnings).toEqual(['the spawn server exited (SIGKILL); 1 processes it started are killed']);
      const again = await captureProcess('sh', { args: ['-c', 'echo again'], spawner: watched });
      expect(again.stdout.text).toBe('again\n');
      expect(watched.pid).not.toBe(first);
    } finally {
      await watched.close();
    }
    await expect(captureProcess('true', { spawner: watched })).rejects.toThrow('the spawn server is closed');
  });

  it('fails the processes asked of a helper that just died as SPAWN_FAILED, without taking its owner down', async () => {
    const warnings: string[] = [];
    const dying = new SpawnServer({ onWarning: (message) => warnings.push(message) });
    try {
      await captureProcess('true', { spawner: dying });
      // Killed and waited for while this event loop is blocked: the helper's exit is not seen yet
      // when the next processes are asked of it, so they are written to a closed channel.
      execSync(`kill -9 ${dying.pid}; sleep 0.2`);
      const asked = await Promise.allSettled(
        [1, 2, 3].map(() => captureProcess('sh', { args: ['-c', 'echo x'], spawner: dying })),
      );
      for (const outcome of asked) {
        expect(outcome.status).toBe('rejected');
        expect(outcome.status === 'rejected' && outcome.reason).toMatchObject({ code: 'SPAWN_FAILED' });
      }
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/; 0 processes it started are killed, 3 it had not started fail to start$/);
      const again = await captureProcess('sh', { args: ['-c', 'echo again'], spawner: dying });
      expect(again.stdout.text).toBe('again\n');
    } finally {
      await dying.close();
    }
  });

  it('does not keep its owner alive, and goes when its owner is killed', async () => {
    const owner = `
      const { SpawnServer, captureProcess } = await import(process.argv[1]);
      const spawner = new SpawnServer();
      const capture = await captureProcess('sh', { args: ['-c', 'echo ran'], spawner });
      console.log(capture.stdout.text.trim(), spawner.pid);
      if (process.argv[2] === 'hang') setInterval(() => undefined, 1000);
    `;
    const natural = spawn(process.execPath, ['--input-type=module', '-e', owner, distEntry], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let printed = '';
    natural.stdout.on('data', (chunk) => {
      printed += String(chunk);
    });
    // Exits by itself once its work is done, the helper's channel notwithstanding.
    const [code] = await once(natural, 'exit');
    expect(code).toBe(0);
    const helperOfNatural = Number(printed.trim().split(' ')[1]);
    expect(printed.startsWith('ran ')).toBe(true);

    const hanging = spawn(process.execPath, ['--input-type=module', '-e', owner, distEntry, 'hang'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const [line] = await once(hanging.stdout, 'data');
    const helper = Number(String(line).trim().split(' ')[1]);
    hanging.kill('SIGKILL');
    await once(hanging, 'exit');
    for (let tries = 0; alive(helper) && tries < 100; tries++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(alive(helper)).toBe(false);
    expect(alive(helperOfNatural)).toBe(false);
  });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
