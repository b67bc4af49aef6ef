import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ProcessCgroup } from './process-cgroup.js';
import { groupMembers, processGroupAlive, terminateProcessGroup } from './process-group.js';
import { PROCESS_GROUP_TOKEN_ENV, ProcessGroupRegistry } from './process-group-registry.js';

const distEntry = fileURLToPath(new URL('../dist/index.js', import.meta.url));

/** Whether a process runs (a zombie counts as gone). */
function alive(pid: number): boolean {
  try {
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z');
  } catch {
    return false;
  }
}

/** A real detached `sleep` in its own process group, its members carrying `token`. */
function sleeper(token: string): number {
  const child = spawn('sh', ['-c', 'sleep 30 & wait'], {
    detached: true,
    stdio: 'ignore',
    env: { PATH: process.env.PATH, [PROCESS_GROUP_TOKEN_ENV]: token },
  });
  child.unref();
  return child.pid as number;
}

describe('ProcessGroupRegistry', () => {
  let dir: string;
  const started: number[] = [];
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wharf-groups-'));
  });
  afterEach(async () => {
    for (const pgid of started.splice(0)) await terminateProcessGroup(pgid, { graceMs: 100 });
    await rm(dir, { recursive: true, force: true });
  });

  it('reaps groups of a dead owner, leaves a live owner alone and never signals a group without the token', async () => {
    const registry = new ProcessGroupRegistry(dir);
    const orphan = sleeper('t-orphan');
    const foreign = sleeper('t-foreign');
    const recycled = sleeper('someone-else');
    started.push(orphan, foreign, recycled);
    // Entries as other workers wrote them: owners long dead (a pid beyond pid_max) or alive (pid 1).
    const entry = (pgid: number, ownerPid: number, token: string) =>
      writeFile(join(registry.dir, `${pgid}.json`), JSON.stringify({ pgid, ownerPid, token }));
    registry.add(orphan, 't-orphan'); // creates the directory; the line below makes its owner dead
    await entry(orphan, 99_999_999, 't-orphan');
    await entry(foreign, 1, 't-foreign');
    await entry(recycled, 99_999_999, 'the-token-of-a-group-long-gone');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(groupMembers(orphan)?.length).toBe(2);

    const reaped = await registry.reap({ graceMs: 500 });
    expect(reaped).toEqual([orphan]);
    expect(processGroupAlive(orphan)).toBe(false);
    expect(processGroupAlive(foreign)).toBe(true);
    expect(processGroupAlive(recycled)).toBe(true);
    expect(registry.entries().map((kept) => kept.pgid)).toEqual([foreign]);
  });

  it('ends a group reserved before its spawn whose owner died before recording it, by its token', async () => {
    const registry = new ProcessGroupRegistry(dir);
    const token = randomUUID();
    const pgid = sleeper(token);
    started.push(pgid);
    // What a worker killed between the spawn and `add` leaves: the reservation only.
    registry.reserve(token);
    const pending = join(registry.dir, `pending-${token}.json`);
    await writeFile(pending, JSON.stringify({ ownerPid: 99_999_999, token }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(processGroupAlive(pgid)).toBe(true);
    expect(registry.entries()).toEqual([]);
    await registry.reap({ graceMs: 100 });
    for (let tries = 0; tries < 40 && groupMembers(pgid)?.some(alive); tries++)
      await new Promise((resolve) => setTimeout(resolve, 25));
    expect(groupMembers(pgid)?.some(alive) ?? false).toBe(false);
    await expect(readFile(pending, 'utf8')).rejects.toThrow();
    // A reservation that `add` replaces leaves no pending file behind.
    const other = randomUUID();
    registry.reserve(other);
    registry.add(4242, other);
    expect((await readdir(registry.dir)).filter((file) => file.startsWith('pending-'))).toEqual([]);
    registry.remove(4242);
  });

  it.skipIf(!ProcessCgroup.available())(
    'reaps what a SIGKILLed owner left behind, a setsid process too (cgroup)',
    async () => {
      const pidFile = join(dir, 'escapee.pid');
      // A worker that captures a script and is SIGKILLed while the script runs.
      const owner = `
        const { captureProcess, ProcessGroupRegistry } = await import(process.argv[1]);
        await captureProcess('sh', {
          args: ['-c', 'setsid sleep 1000 >/dev/null 2>&1 & echo $! > ${pidFile}; sleep 1000'],
          registry: new ProcessGroupRegistry(process.argv[2]),
        });`;
      const worker = spawn(process.execPath, ['--input-type=module', '-e', owner, distEntry, dir], {
        stdio: 'ignore',
      });
      while (!(await readFile(pidFile, 'utf8').catch(() => '')))
        await new Promise((resolve) => setTimeout(resolve, 20));
      const escapee = Number(await readFile(pidFile, 'utf8'));
      // The entry is written once the spawn has returned, which a loaded machine can delay past
      // the script's first line: kill the owner once it is there (the spawn server's helper
      // covers that window in a worker: it ends its processes when its owner goes).
      while (new ProcessGroupRegistry(dir).entries().length === 0)
        await new Promise((resolve) => setTimeout(resolve, 20));
      worker.kill('SIGKILL');
      await new Promise((resolve) => worker.once('exit', resolve));
      expect(alive(escapee)).toBe(true);

      const registry = new ProcessGroupRegistry(dir);
      const [entry] = registry.entries();
      expect(entry?.cgroup).toBeDefined();
      expect(await registry.reap({ graceMs: 300 })).toEqual([entry?.pgid]);
      expect(alive(escapee)).toBe(false);
      expect(registry.entries()).toEqual([]);
    },
  );
});
