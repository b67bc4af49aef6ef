import { execSync, spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureProcess, type ProcessCapture } from './capture-process.js';
import { markedProcesses } from './marked-processes.js';
import { ProcessCgroup } from './process-cgroup.js';
import { ProcessGroupRegistry } from './process-group-registry.js';
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

  it('fails what its dying helper ran as SPAWN_HELPER_DIED, ends all of it, and starts a new helper for the next process', async () => {
    const warnings: string[] = [];
    const watched = new SpawnServer({ onWarning: (message) => warnings.push(message) });
    const registry = new ProcessGroupRegistry(join(dir, 'groups'));
    const marker = randomUUID();
    try {
      const running = captureProcess('sh', {
        args: ['-c', 'echo up; sleep 30 & sleep 30'],
        env: { PATH: process.env.PATH, WHARF_TEST_MARKER: marker },
        registry,
        spawner: watched,
      });
      for (let tries = 0; markedProcesses('WHARF_TEST_MARKER', marker)?.length !== 3 && tries < 100; tries++)
        await new Promise((resolve) => setTimeout(resolve, 20));
      // Its pipes have reached this process by now.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const first = watched.pid as number;
      process.kill(first, 'SIGKILL');
      // Not an exit by SIGKILL of the script's own: the script did not die, its helper did.
      const error = await running.catch((caught: unknown) => caught);
      expect(StdioLimitsError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ code: 'SPAWN_HELPER_DIED' });
      expect(markedProcesses('WHARF_TEST_MARKER', marker)).toEqual([]);
      expect(registry.entries()).toEqual([]);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(
        /^the spawn server exited \(SIGKILL\); 1 processes it started and 0 it may have started are ended \(\d+ processes killed\) and fail as SPAWN_HELPER_DIED$/,
      );
      const again = await captureProcess('sh', { args: ['-c', 'echo again'], spawner: watched });
      expect(again.stdout.text).toBe('again\n');
      expect(watched.pid).not.toBe(first);
    } finally {
      await watched.close();
    }
    await expect(captureProcess('true', { spawner: watched })).rejects.toThrow('the spawn server is closed');
  });

  it.each([
    ['without cgroups', false],
    ['with cgroups', true],
  ])(
    'never reports a process its dying helper may have started as never started, and leaves none of them running (%s)',
    async (_, cgroup) => {
      if (cgroup && !ProcessCgroup.available()) return;
      const dying = new SpawnServer({ onWarning: () => undefined });
      const marker = randomUUID();
      const ran = await mkdtemp(join(dir, 'ran-'));
      try {
        await captureProcess('true', { spawner: dying });
        const runs = Array.from({ length: 150 }, (_, index) =>
          captureProcess('sh', {
            args: ['-c', `touch ${ran}/${index}; sleep 5`],
            env: { PATH: process.env.PATH, WHARF_TEST_MARKER: marker },
            cgroup,
            spawner: dying,
          }),
        );
        // Killed once some have run, while the helper still works through the rest.
        for (let tries = 0; (await readdir(ran)).length < 5 && tries < 250; tries++)
          await new Promise((resolve) => setTimeout(resolve, 4));
        process.kill(dying.pid as number, 'SIGKILL');
        const outcomes = await Promise.allSettled(runs);
        expect((await readdir(ran)).length).toBeGreaterThan(0);
        for (const outcome of outcomes) {
          expect(outcome.status).toBe('rejected');
          expect(outcome.status === 'rejected' && outcome.reason).toMatchObject({
            code: 'SPAWN_HELPER_DIED',
          });
        }
        // Ended before the failures were reported: a retry never runs beside an orphan.
        expect(markedProcesses('WHARF_TEST_MARKER', marker)).toEqual([]);
      } finally {
        for (const pid of markedProcesses('WHARF_TEST_MARKER', marker) ?? []) process.kill(pid, 'SIGKILL');
        await dying.close();
      }
    },
  );

  it('sends the processes asked of a helper that just died to a new helper', async () => {
    const warnings: string[] = [];
    const dying = new SpawnServer({ onWarning: (message) => warnings.push(message) });
    try {
      await captureProcess('true', { spawner: dying });
      // Killed and waited for while this event loop is blocked: the helper's exit is not seen yet
      // when the next processes are asked of it, so they are written to a closed channel.
      execSync(`kill -9 ${dying.pid}; sleep 0.2`);
      const asked = await Promise.all(
        [1, 2, 3].map((index) => captureProcess('sh', { args: ['-c', `echo ${index}`], spawner: dying })),
      );
      expect(asked.map((capture) => capture.stdout.text)).toEqual(['1\n', '2\n', '3\n']);
      for (let tries = 0; warnings.length === 0 && tries < 100; tries++)
        await new Promise((resolve) => setTimeout(resolve, 20));
      expect(warnings).toEqual([
        'the spawn server exited (SIGKILL); nothing was running on it; 3 requests it never received went to a new helper',
      ]);
    } finally {
      await dying.close();
    }
  });

  it('fails a request too large for its helper alone, naming its size and the limit', async () => {
    const helper = spawner.pid;
    const others = Array.from({ length: 5 }, (_, index) =>
      captureProcess('sh', { args: ['-c', `sleep 0.5; echo ${index}`], spawner }),
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    const error = await captureProcess('true', {
      env: { PATH: process.env.PATH, BIG: 'x'.repeat(64 * 1024 * 1024) },
      cgroup: false,
      spawner,
    }).catch((caught: unknown) => caught);
    expect(StdioLimitsError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'SPAWN_REQUEST_TOO_LARGE' });
    expect((error as Error).message).toMatch(/is 671\d{5} bytes .*limit of 16777216 bytes$/);
    const captures = await Promise.all(others);
    expect(captures.map((capture) => capture.stdout.text)).toEqual(['0\n', '1\n', '2\n', '3\n', '4\n']);
    expect(spawner.pid).toBe(helper);
  });

  it('does not keep its owner alive, and goes when its owner is killed', async () => {
    const owner = `
      const { SpawnServer, captureProcess } = await import(process.argv[1]);
      const spawner = new SpawnServer();
      const capture = await captureProcess('sh', { args: ['-c', 'echo ran'], spawner });
      if (process.argv[2] === 'hang') {
        // Left running when the owner is killed, in a cgroup where there are cgroups.
        captureProcess('sh', { args: ['-c', 'sleep 30 & sleep 30'], env: { PATH: process.env.PATH, WHARF_TEST_MARKER: process.argv[3] }, spawner });
        setInterval(() => undefined, 1000);
        setTimeout(() => console.log(capture.stdout.text.trim(), spawner.pid), 300);
      } else console.log(capture.stdout.text.trim(), spawner.pid);
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

    const marker = randomUUID();
    const hanging = spawn(process.execPath, ['--input-type=module', '-e', owner, distEntry, 'hang', marker], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const [line] = await once(hanging.stdout, 'data');
    const helper = Number(String(line).trim().split(' ')[1]);
    const left = markedProcesses('WHARF_TEST_MARKER', marker) ?? [];
    expect(left).toHaveLength(3);
    const cgroups = left.map((pid) => ownCgroup(pid));
    hanging.kill('SIGKILL');
    await once(hanging, 'exit');
    for (let tries = 0; alive(helper) && tries < 100; tries++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(alive(helper)).toBe(false);
    expect(alive(helperOfNatural)).toBe(false);
    // Its helper ended what it had started for it before it went, cgroup and all.
    expect(markedProcesses('WHARF_TEST_MARKER', marker)).toEqual([]);
    if (ProcessCgroup.available()) {
      expect(new Set(cgroups).size).toBe(1);
      expect(existsSync(cgroups[0] as string)).toBe(false);
    }
  });
});

/** The cgroup v2 directory of a process. */
function ownCgroup(pid: number): string {
  const own = readFileSync(`/proc/${pid}/cgroup`, 'utf8')
    .split('\n')
    .find((line) => line.startsWith('0::'))
    ?.slice(3);
  const mount = readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((line) => line.split(' '))
    .find((fields) => fields[fields.indexOf('-') + 1] === 'cgroup2');
  return join(mount?.[4] ?? '/sys/fs/cgroup', own ?? '');
}

/** Whether a process runs (a zombie left to a parent that does not reap it does not). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}
