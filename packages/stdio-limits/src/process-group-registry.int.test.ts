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
    registry.add(orphan, 't-orphan'); // creates the directory; the file below names a dead owner
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

  it('reaps from the journal of an owner SIGKILLed while its scripts ran, then removes that journal', async () => {
    // A worker that records a running group and one reserved before its spawn, then is killed.
    const owner = `
      const { spawn } = await import('node:child_process');
      const { randomUUID } = await import('node:crypto');
      const { ProcessGroupRegistry, PROCESS_GROUP_TOKEN_ENV } = await import(process.argv[1]);
      const registry = new ProcessGroupRegistry(process.argv[2]);
      const start = (token) => spawn('sh', ['-c', 'sleep 30 & wait'], {
        detached: true, stdio: 'ignore', env: { PATH: process.env.PATH, [PROCESS_GROUP_TOKEN_ENV]: token },
      });
      const recorded = randomUUID();
      registry.reserve(recorded);
      registry.add(start(recorded).pid, recorded);
      const reserved = randomUUID();
      registry.reserve(reserved);
      const unrecorded = start(reserved);
      // A group that ended is forgotten: it is not reaped.
      const ended = randomUUID();
      registry.reserve(ended);
      registry.add(4242, ended);
      registry.remove(4242);
      console.log(JSON.stringify({ unrecorded: unrecorded.pid }));
      setInterval(() => {}, 1000);`;
    const worker = spawn(process.execPath, ['--input-type=module', '-e', owner, distEntry, dir], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const line = await new Promise<string>((resolve) =>
      worker.stdout.once('data', (data) => resolve(String(data))),
    );
    const { unrecorded } = JSON.parse(line) as { unrecorded: number };
    worker.kill('SIGKILL');
    await new Promise((resolve) => worker.once('exit', resolve));

    const registry = new ProcessGroupRegistry(dir);
    const [entry] = registry.entries();
    expect(registry.entries()).toHaveLength(1);
    const recorded = entry?.pgid as number;
    started.push(recorded, unrecorded);
    expect(processGroupAlive(recorded)).toBe(true);
    expect(processGroupAlive(unrecorded)).toBe(true);
    expect((await readdir(registry.dir)).filter((file) => file.startsWith('journal-'))).toHaveLength(1);

    expect(await registry.reap({ graceMs: 300 })).toEqual([recorded]);
    for (let tries = 0; tries < 40 && groupMembers(unrecorded)?.some(alive); tries++)
      await new Promise((resolve) => setTimeout(resolve, 25));
    expect(processGroupAlive(recorded)).toBe(false);
    expect(groupMembers(unrecorded)?.some(alive) ?? false).toBe(false);
    expect(registry.entries()).toEqual([]);
    expect(await readdir(registry.dir)).toEqual([]);
  });

  it("leaves a live owner's journal and its groups alone, and forgets its own groups once reaped", async () => {
    const registry = new ProcessGroupRegistry(dir);
    const token = randomUUID();
    const pgid = sleeper(token);
    started.push(pgid);
    registry.reserve(token);
    registry.add(pgid, token);
    // Another live worker on the host, as its journal reads (pid 1 is alive).
    const other = join(registry.dir, `journal-1-${randomUUID()}.log`);
    const foreign = sleeper('t-live');
    started.push(foreign);
    await writeFile(
      other,
      `${JSON.stringify({ op: 'add', pgid: foreign, ownerPid: 1, token: 't-live' })}\n{"op":"rem`,
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(
      registry
        .entries()
        .map((entry) => entry.pgid)
        .sort(),
    ).toEqual([pgid, foreign].sort());

    expect(await registry.reap({ graceMs: 300 })).toEqual([pgid]);
    expect(processGroupAlive(pgid)).toBe(false);
    expect(processGroupAlive(foreign)).toBe(true);
    expect(registry.entries().map((entry) => entry.pgid)).toEqual([foreign]);
    expect(await readFile(other, 'utf8')).toContain('t-live');
  });

  it('keeps the journal of another registry of this process once what it held is reaped', async () => {
    const first = new ProcessGroupRegistry(dir);
    // Ids no process group has (beyond pid_max): reaping them signals nothing.
    first.add(99_999_999, randomUUID());
    await new ProcessGroupRegistry(dir).reap({ graceMs: 0 });
    first.add(99_999_998, randomUUID());
    expect(new ProcessGroupRegistry(dir).entries().map((entry) => entry.pgid)).toContain(99_999_998);
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
