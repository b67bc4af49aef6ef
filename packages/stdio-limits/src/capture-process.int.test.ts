import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CaptureProcessOptions, captureProcess as captureDirectly } from './capture-process.js';
import { ProcessCgroup } from './process-cgroup.js';
import { processGroupAlive } from './process-group.js';
import { directSpawner, type ProcessSpawner } from './process-spawner.js';
import { SpawnServer } from './spawn-server.js';
import { StdioLimitsError } from './stdio-limits-error.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wharf-stdio-'));
});
const server = new SpawnServer();
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

const node = process.execPath;
/** Whether a process runs (a zombie waiting for its parent to reap it counts as gone). */
const alive = (pid: number) => {
  try {
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z');
  } catch {
    return false;
  }
};
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
/** The exact bytes `seq 1 n` prints. */
const seqBytes = (count: number) =>
  Buffer.from(Array.from({ length: count }, (_, index) => `${index + 1}\n`).join(''));

// Every case twice: started by this process, and by a spawn server's helper process.
describe.each<[string, ProcessSpawner]>([
  ['directly', directSpawner],
  ['through a SpawnServer', server],
])('captureProcess (%s)', (_, spawner) => {
  const captureProcess = (command: string, options: CaptureProcessOptions = {}) =>
    captureDirectly(command, { ...options, spawner });
  it('drains more than the pipe buffer on both streams without blocking the child', async () => {
    const script = `
      const line = 'x'.repeat(99) + '\\n';
      for (let i = 0; i < 20000; i++) { process.stdout.write(line); process.stderr.write(line); }
      process.stdout.write('last out\\n'); process.stderr.write('last err\\n');`;
    const result = await captureProcess(node, {
      args: ['-e', script],
      limits: { max_stdout_bytes: 4096, max_stderr_bytes: 1024 },
    });
    expect(result.exitCode).toBe(0);
    expect(result.stdout.totalBytes).toBe(2_000_009);
    expect(result.stderr.totalBytes).toBe(2_000_009);
    expect(result.stdout.totalLines).toBe(20_001);
    expect(result.stdout.tail.endsWith('last out\n')).toBe(true);
    expect(result.stderr.tail.endsWith('last err\n')).toBe(true);
    expect(result.stdout.retainedBytes).toBeLessThanOrEqual(4096);
    expect(result.stdout.omittedBytes).toBe(2_000_009 - result.stdout.retainedBytes);
    expect(result.combined.totalBytes).toBe(4_000_018);
  });

  it('returns after the drain timeout when a grandchild keeps the pipes open', async () => {
    const started = Date.now();
    const result = await captureProcess('sh', {
      args: ['-c', 'sleep 30 & echo parent done'],
      limits: { drain_timeout_ms: 300 },
    });
    if (result.pid !== undefined) process.kill(-result.pid, 'SIGKILL');
    expect(result.exitCode).toBe(0);
    expect(result.drainTimedOut).toBe(true);
    expect(result.stdout.text).toBe('parent done\n');
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('kills the grandchild that outlived the child once the drain timeout passed', async () => {
    const pidFile = join(dir, 'grandchild.pid');
    const result = await captureProcess('sh', {
      args: ['-c', `sleep 30 & echo $! > ${pidFile}; echo hi`],
      limits: { drain_timeout_ms: 300 },
      killGraceMs: 500,
    });
    const grandchild = Number(await readFile(pidFile, 'utf8'));
    expect(result).toMatchObject({ exitCode: 0, drainTimedOut: true, killedStrays: true });
    expect(result.stdout.text).toBe('hi\n');
    expect(alive(grandchild)).toBe(false);
    expect(processGroupAlive(result.pid ?? 0)).toBe(false);
  });

  it('kills a background process that closed its pipes, and SIGKILLs one that ignores SIGTERM', async () => {
    const pidFile = join(dir, 'stubborn.pid');
    const result = await captureProcess('sh', {
      args: ['-c', `(trap '' TERM; exec sleep 30) >/dev/null 2>&1 & echo $! > ${pidFile}; echo started`],
      killGraceMs: 300,
    });
    const background = Number(await readFile(pidFile, 'utf8'));
    expect(result).toMatchObject({ exitCode: 0, drainTimedOut: false, killedStrays: true });
    expect(alive(background)).toBe(false);
  });

  const escapee = async (pidFile: string) => Number(await readFile(pidFile, 'utf8'));

  it.skipIf(!ProcessCgroup.available())(
    'ends a process that left the group with setsid when the capture ends (cgroup)',
    async () => {
      const quiet = join(dir, 'setsid-quiet.pid');
      const result = await captureProcess('sh', {
        args: ['-c', `setsid sleep 1000 >/dev/null 2>&1 & echo $! > ${quiet}; echo started`],
        killGraceMs: 300,
      });
      expect(result).toMatchObject({ exitCode: 0, drainTimedOut: false, killedStrays: true });
      expect(alive(await escapee(quiet))).toBe(false);
      // One that keeps the pipes open too: the drain timeout passes, then it is ended.
      const holding = join(dir, 'setsid-holding.pid');
      const held = await captureProcess('sh', {
        args: ['-c', `setsid sleep 1000 & echo $! > ${holding}; echo started`],
        limits: { drain_timeout_ms: 300 },
        killGraceMs: 300,
      });
      expect(held).toMatchObject({ exitCode: 0, drainTimedOut: true, killedStrays: true });
      expect(held.stdout.text).toBe('started\n');
      expect(alive(await escapee(holding))).toBe(false);
    },
  );

  it.skipIf(!ProcessCgroup.available())('ends a setsid process on abort (cgroup)', async () => {
    const pidFile = join(dir, 'setsid-abort.pid');
    const controller = new AbortController();
    const capture = captureProcess('sh', {
      args: [
        '-c',
        `setsid sh -c 'trap "" TERM; exec sleep 1000' >/dev/null 2>&1 & echo $! > ${pidFile}; sleep 1000`,
      ],
      signal: controller.signal,
      killGraceMs: 300,
    });
    while (!(await readFile(pidFile, 'utf8').catch(() => '')))
      await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort();
    const result = await capture;
    expect(result.killedBy).toBe('abort');
    expect(alive(await escapee(pidFile))).toBe(false);
  });

  it('cannot reach a process that left the group with setsid without a cgroup (documented limit)', async () => {
    const pidFile = join(dir, 'escapee.pid');
    const result = await captureProcess('sh', {
      args: ['-c', `setsid sh -c 'echo $$ > ${pidFile}; exec sleep 30' >/dev/null 2>&1 & sleep 0.3`],
      killGraceMs: 300,
      cgroup: false,
    });
    const pid = await escapee(pidFile);
    try {
      expect(result.exitCode).toBe(0);
      expect(alive(pid)).toBe(true);
    } finally {
      process.kill(pid, 'SIGKILL');
    }
  });

  it('records a timeout with the signal that ended the process', async () => {
    const result = await captureProcess('sleep', { args: ['30'], timeoutMs: 200 });
    expect(result).toMatchObject({ timedOut: true, killedBy: 'timeout', exitCode: null, signal: 'SIGTERM' });
  });

  it('kills on overflow only when asked', async () => {
    const result = await captureProcess('yes', {
      limits: { max_stdout_bytes: 1000, kill_on_overflow: true },
    });
    expect(result.killedBy).toBe('overflow');
    expect(result.signal).toBe('SIGTERM');
    expect(result.stdout.totalBytes).toBeGreaterThan(1000);
    expect(result.stdout.tail).toMatch(/^(y\n)+$/);
  });

  it('records exit codes and stderr, and feeds stdin', async () => {
    const result = await captureProcess('sh', {
      args: ['-c', 'cat; echo oops >&2; exit 3'],
      input: 'from stdin\n',
    });
    expect(result).toMatchObject({ exitCode: 3, signal: null, timedOut: false, killedBy: null });
    expect(result.stdout.text).toBe('from stdin\n');
    expect(result.stderr.text).toBe('oops\n');
  });

  it('hands the unused combined share of one stream to the other', async () => {
    const result = await captureProcess('sh', {
      args: ['-c', 'seq 1 3000; printf "%0100d" 0 >&2'],
      limits: { max_stdout_bytes: 8192, max_stderr_bytes: 8192, max_combined_bytes: 6000 },
    });
    expect(result.stderr.truncated).toBe(false);
    expect(result.stderr.retainedBytes).toBe(100);
    expect(result.stdout.retainedBytes).toBeLessThanOrEqual(5900);
    expect(result.stdout.retainedBytes).toBeGreaterThan(5800);
    expect(result.combined.retainedBytes).toBeLessThanOrEqual(6000);
  });

  it('spills the full stream byte-exact, plain and gzip, and reports its hash', async () => {
    const expected = seqBytes(100_000);
    for (const compress of [false, true]) {
      const result = await captureProcess('seq', {
        args: ['1', '100000'],
        spillName: `seq-${compress}`,
        limits: {
          max_stdout_bytes: 1024,
          external_storage_dir: dir,
          external_storage_threshold: 10_000,
          compress_external: compress,
        },
      });
      const spill = result.stdout.spill;
      expect(spill).not.toBeNull();
      if (!spill) return;
      const file = await readFile(spill.path);
      const content = compress ? gunzipSync(file) : file;
      expect(content.equals(expected)).toBe(true);
      expect(spill).toMatchObject({
        bytes: expected.length,
        sha256: sha256(expected),
        capped: false,
        compressed: compress,
      });
      expect(spill.fileBytes).toBe(file.length);
      expect(spill.path.endsWith(compress ? '.stdout.log.gz' : '.stdout.log')).toBe(true);
      expect(result.stderr.spill).toBeNull();
    }
  });

  it('spills every stream that gets cut, even below the threshold or cut only by the combined limit', async () => {
    const cut = await captureProcess('seq', {
      args: ['1', '5000'],
      limits: { max_stdout_bytes: 100, external_storage_dir: dir },
    });
    expect(cut.stdout.truncated).toBe(true);
    expect((await readFile(cut.stdout.spill?.path ?? '')).equals(seqBytes(5000))).toBe(true);
    const combined = await captureProcess('sh', {
      args: ['-c', 'seq 1 200; seq 1 200 >&2'],
      limits: {
        max_stdout_bytes: 4096,
        max_stderr_bytes: 4096,
        max_combined_bytes: 1000,
        external_storage_dir: dir,
      },
    });
    expect(combined.stdout.truncated && combined.stderr.truncated).toBe(true);
    expect((await readFile(combined.stdout.spill?.path ?? '')).equals(seqBytes(200))).toBe(true);
    expect((await readFile(combined.stderr.spill?.path ?? '')).equals(seqBytes(200))).toBe(true);
  });

  it('does not spill below the threshold', async () => {
    const result = await captureProcess('echo', { args: ['small'], limits: { external_storage_dir: dir } });
    expect(result.stdout.spill).toBeNull();
  });

  it("makes the spill's folder when it does not exist yet", async () => {
    const missing = join(dir, 'not-yet', 'made');
    const result = await captureProcess('sh', {
      args: ['-c', 'seq 1 300; seq 1 300 >&2'],
      limits: { external_storage_dir: missing, external_storage_threshold: 0 },
    });
    expect((await readFile(result.stdout.spill?.path ?? '')).equals(seqBytes(300))).toBe(true);
    expect((await readFile(result.stderr.spill?.path ?? '')).equals(seqBytes(300))).toBe(true);
    expect(result.stdout.spill?.path.startsWith(missing)).toBe(true);
  });

  it('stops the spill at its hard cap and says so', async () => {
    const result = await captureProcess('seq', {
      args: ['1', '10000'],
      limits: { external_storage_dir: dir, external_storage_threshold: 0, max_external_bytes: 1000 },
    });
    const spill = result.stdout.spill;
    expect(spill).toMatchObject({ bytes: 1000, capped: true, droppedBytes: seqBytes(10_000).length - 1000 });
    expect((await readFile(spill?.path ?? '')).equals(seqBytes(10_000).subarray(0, 1000))).toBe(true);
  });

  it('keeps capturing when the spill cannot be written, and says why', async () => {
    const blocker = join(dir, 'not-a-directory');
    await writeFile(blocker, 'x');
    const result = await captureProcess('seq', {
      args: ['1', '100000'],
      limits: {
        max_stdout_bytes: 64,
        external_storage_dir: join(blocker, 'spill'),
        external_storage_threshold: 0,
      },
    });
    expect(result.exitCode).toBe(0);
    expect(result.stdout.totalBytes).toBe(seqBytes(100_000).length);
    expect(result.stdout.spill?.error).toMatch(/ENOTDIR|ENOENT/);
    expect(result.stdout.spill?.capped).toBe(false);
    expect(result.stdout.tail.endsWith('100000\n')).toBe(true);
  });

  it('runs a command through the shell', async () => {
    const result = await captureProcess('printf "a\\nb" | wc -l', { shell: true });
    expect(result.stdout.text.trim()).toBe('1');
  });

  it('reports progress and stops on abort', async () => {
    const progress: number[] = [];
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const result = await captureProcess('yes', {
      signal: controller.signal,
      progressIntervalMs: 50,
      onProgress: (update) => progress.push(update.stdoutBytes),
    });
    expect(result.killedBy).toBe('abort');
    expect(progress.length).toBeGreaterThan(1);
    expect(progress.at(-1)).toBe(result.stdout.totalBytes);
  });

  it('fails with SPAWN_FAILED for a missing command', async () => {
    const error = await captureProcess('/nonexistent/wharf-command').catch((caught: unknown) => caught);
    expect(StdioLimitsError.isInstance(error) && error.code).toBe('SPAWN_FAILED');
  });
});
