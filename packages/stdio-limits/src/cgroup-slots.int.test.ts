import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureProcess } from './capture-process.js';
import { CgroupSlots } from './cgroup-slots.js';
import { cgroupParentDir, ProcessCgroup } from './process-cgroup.js';
import { ProcessGroupRegistry } from './process-group-registry.js';
import { Sandbox } from './sandbox.js';
import { SpawnServer } from './spawn-server.js';

/** Whether a process runs (a zombie counts as gone). */
function alive(pid: number): boolean {
  try {
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z');
  } catch {
    return false;
  }
}

/** The cgroup path a capture's script ran in, as its own `/proc/self/cgroup` says. */
const OWN_CGROUP = 'sed -n "s/^0:://p" /proc/self/cgroup';

const cgroups = process.platform === 'linux' && cgroupParentDir() !== undefined;

let root: string;
const server = new SpawnServer();
beforeAll(async () => {
  root = await mkdtemp(join(process.cwd(), '.cgroup-slots-test-'));
});
afterAll(async () => {
  await server.close();
  await rm(root, { recursive: true, force: true });
});

describe('ProcessCgroup.prepareForReuse', () => {
  /** A directory shaped like an emptied cgroup (a plain one: the files are what the kernel shows). */
  const fakeCgroup = (name: string, events: string, controllers: string) => {
    const dir = join(root, name);
    mkdirSync(join(dir, 'made-by-the-script', 'deeper'), { recursive: true });
    writeFileSync(join(dir, 'cgroup.events'), events);
    writeFileSync(join(dir, 'cgroup.stat'), 'nr_descendants 2\nnr_dying_descendants 0\n');
    writeFileSync(join(dir, 'cgroup.controllers'), controllers);
    writeFileSync(join(dir, 'cgroup.freeze'), '1\n');
    for (const [file, value] of [
      ['memory.max', '1048576'],
      ['memory.high', '524288'],
      ['memory.low', '4096'],
      ['memory.min', '4096'],
      ['pids.max', '5'],
      ['cpu.max', '10000 100000'],
    ])
      writeFileSync(join(dir, file as string), value as string);
    return dir;
  };

  it('thaws it, removes the cgroups made inside it and sets its controllers’ limits back to the defaults', () => {
    const dir = fakeCgroup('emptied', 'populated 0\nfrozen 1\n', 'cpu memory pids\n');
    expect(ProcessCgroup.open(dir).prepareForReuse()).toBe(true);
    const read = (file: string) => readFileSync(join(dir, file), 'utf8');
    expect(read('cgroup.freeze')).toBe('0');
    expect(existsSync(join(dir, 'made-by-the-script'))).toBe(false);
    expect(['memory.max', 'memory.high', 'pids.max', 'cpu.max'].map(read)).toEqual([
      'max',
      'max',
      'max',
      'max',
    ]);
    expect(['memory.low', 'memory.min'].map(read)).toEqual(['0', '0']);
  });

  it('leaves the limits of controllers the cgroup does not have alone', () => {
    const dir = fakeCgroup('pids-only', 'populated 0\nfrozen 0\n', 'pids\n');
    expect(ProcessCgroup.open(dir).prepareForReuse()).toBe(true);
    expect(readFileSync(join(dir, 'pids.max'), 'utf8')).toBe('max');
    expect(readFileSync(join(dir, 'memory.max'), 'utf8')).toBe('1048576');
    expect(readFileSync(join(dir, 'cgroup.freeze'), 'utf8')).toBe('1\n');
  });

  it('refuses a cgroup that still holds a process, or is gone', () => {
    const dir = fakeCgroup('populated', 'populated 1\nfrozen 0\n', 'memory\n');
    expect(ProcessCgroup.open(dir).prepareForReuse()).toBe(false);
    expect(readFileSync(join(dir, 'memory.max'), 'utf8')).toBe('1048576');
    expect(ProcessCgroup.open(join(root, 'none')).prepareForReuse()).toBe(false);
  });
});

describe.skipIf(!cgroups)('CgroupSlots', () => {
  it('kills what a script left in its cgroup before the cgroup is handed out again', async () => {
    const slots = new CgroupSlots();
    const cgroup = slots.acquire() as ProcessCgroup;
    // A process that left its group and session: only the cgroup still holds it.
    const [command, args] = cgroup.wrap('/bin/sh', ['-c', 'setsid sleep 60 > /dev/null 2>&1 & echo $!']);
    const child = spawn(command, args, { detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    await new Promise((resolve) => child.stdout.on('end', resolve));
    const stray = Number(out.trim());
    expect(alive(stray)).toBe(true);
    expect(cgroup.pids()).toContain(stray);

    await slots.release(cgroup);
    expect(alive(stray)).toBe(false);
    expect(cgroup.populated()).toBe(false);
    // The same cgroup, empty, for the next script.
    expect(slots.acquire()).toBe(cgroup);
    expect(cgroup.pids()).toEqual([]);
    await slots.release(cgroup);
    await slots.close();
  });

  it('runs captures one after another in one cgroup, each alone in it, a background process of the first ended', async () => {
    const slots = new CgroupSlots();
    const first = await captureProcess('sh', {
      args: ['-c', `${OWN_CGROUP}; setsid sleep 60 > /dev/null 2>&1 & echo $!`],
      cgroups: slots,
      spawner: server,
      killGraceMs: 100,
    });
    const [path, strayText] = first.stdout.text.trim().split('\n');
    const stray = Number(strayText);
    expect(first.killedStrays).toBe(true);
    expect(alive(stray)).toBe(false);
    expect(slots.size).toBe(1);
    expect(slots.idle).toBe(1);
    // The second runs in the same cgroup, whose members are its own: its shell and `cat`.
    const dir = join(cgroupParentDir() as string, (path as string).split('/').at(-1) as string);
    const second = await captureProcess('sh', {
      args: ['-c', `${OWN_CGROUP}; echo $$; cat "${dir}/cgroup.procs"`],
      cgroups: slots,
      spawner: server,
    });
    const [secondPath, shell, ...members] = second.stdout.text.trim().split('\n');
    expect(secondPath).toBe(path);
    expect(members).toContain(shell);
    expect(members).not.toContain(String(stray));
    expect(members).toHaveLength(2);
    expect(slots.size).toBe(1);
    await slots.close();
  });

  it('holds one cgroup per script running at once, and removes them all when closed', async () => {
    const slots = new CgroupSlots();
    const run = () => captureProcess('sh', { args: ['-c', `${OWN_CGROUP}; sleep 0.2`], cgroups: slots });
    const paths = new Set(
      (await Promise.all([run(), run(), run()])).map((capture) => capture.stdout.text.trim()),
    );
    expect(paths.size).toBe(3);
    expect(slots.size).toBe(3);
    const dirs = [...paths].map((path) =>
      join(cgroupParentDir() as string, path.split('/').at(-1) as string),
    );
    for (const dir of dirs) expect(existsSync(dir)).toBe(true);
    // One in use when the worker stops: removed as it is given back.
    const busy = slots.acquire() as ProcessCgroup;
    expect(dirs).toContain(busy.path);
    await slots.close();
    for (const dir of dirs) expect(existsSync(dir)).toBe(dir === busy.path);
    await slots.release(busy);
    expect(existsSync(busy.path)).toBe(false);
    expect(slots.acquire()).toBeUndefined();
  });

  it('removes the empty cgroups a killed Wharf process left behind, and no other', async () => {
    const parent = cgroupParentDir() as string;
    // A pid no process has any more.
    const gone = spawn('true');
    await new Promise((resolve) => gone.on('exit', resolve));
    const abandoned = join(parent, `wharf-${gone.pid}-00000000-0000-4000-8000-000000000000`);
    const live = join(parent, `wharf-${process.pid}-00000000-0000-4000-8000-000000000001`);
    mkdirSync(abandoned);
    mkdirSync(live);
    try {
      const slots = new CgroupSlots();
      slots.acquire();
      expect(existsSync(abandoned)).toBe(false);
      expect(existsSync(live)).toBe(true);
      await slots.close();
    } finally {
      await ProcessCgroup.open(live).remove();
      await ProcessCgroup.open(abandoned).remove();
    }
  });
});

describe.skipIf(!cgroups)('CgroupSlots with a ProcessGroupRegistry', () => {
  const records = (registry: ProcessGroupRegistry) => {
    try {
      return readdirSync(registry.dir).sort();
    } catch {
      return [];
    }
  };

  it('records each slot once, not each capture, and forgets it when the slot is removed', async () => {
    const registry = new ProcessGroupRegistry(join(root, 'groups-once'));
    const slots = new CgroupSlots({ registry });
    const seen: string[][] = [];
    for (let index = 0; index < 3; index++) {
      const capture = await captureProcess('sh', {
        args: ['-c', `${OWN_CGROUP}; ls "${registry.dir}"`],
        cgroups: slots,
        registry,
      });
      seen.push(capture.stdout.text.trim().split('\n').slice(1));
    }
    const slot = slots.acquire() as ProcessCgroup;
    const name = slot.path.split('/').at(-1);
    // While each capture ran, the slot's record was the only one.
    expect(seen).toEqual([[`cgroup-${name}.json`], [`cgroup-${name}.json`], [`cgroup-${name}.json`]]);
    await slots.close();
    // In use when closed: recorded until it is given back and removed.
    expect(records(registry)).toEqual([`cgroup-${name}.json`]);
    await slots.release(slot);
    expect(existsSync(slot.path)).toBe(false);
    expect(records(registry)).toEqual([]);
  });

  it('records each capture itself when the slots record in another registry, or none', async () => {
    const registry = new ProcessGroupRegistry(join(root, 'groups-own'));
    const slots = new CgroupSlots();
    // The record is written as pending-<id>.json before the spawn and named for its process group
    // just after: the script waits (up to 5 s) for the name before it lists the folder.
    const capture = await captureProcess('sh', {
      args: [
        '-c',
        `for i in $(seq 100); do ls "${registry.dir}" | grep -qE '^[0-9]+\\.json$' && break; sleep 0.05; done; ls "${registry.dir}"`,
      ],
      cgroups: slots,
      registry,
    });
    expect(capture.stdout.text.trim()).toMatch(/^\d+\.json$/);
    expect(records(registry)).toEqual([]);
    await slots.close();
  });

  it('reap() ends what a killed owner left running in its slot, removes the slot and forgets it', async () => {
    const registry = new ProcessGroupRegistry(join(root, 'groups-reap'));
    const gone = spawn('true');
    await new Promise((resolve) => gone.on('exit', resolve));
    const owner = gone.pid as number;
    const path = join(
      cgroupParentDir() as string,
      `wharf-${owner}-${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}`,
    );
    mkdirSync(path);
    // A script of the dead owner still running in its slot, in a session of its own.
    const stray = spawn('sh', ['-c', `echo $$ > "${path}/cgroup.procs" && exec sleep 60`], {
      detached: true,
      stdio: 'ignore',
    });
    stray.unref();
    const pid = stray.pid as number;
    for (let tries = 0; tries < 100 && !ProcessCgroup.open(path).pids().includes(pid); tries++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(ProcessCgroup.open(path).pids()).toEqual([pid]);
    mkdirSync(registry.dir, { recursive: true });
    writeFileSync(
      join(registry.dir, `cgroup-${path.split('/').at(-1)}.json`),
      JSON.stringify({ ownerPid: owner, cgroup: path }),
    );
    try {
      expect(await registry.reap({ graceMs: 100 })).toEqual([pid]);
      expect(alive(pid)).toBe(false);
      expect(existsSync(path)).toBe(false);
      expect(records(registry)).toEqual([]);
    } finally {
      await ProcessCgroup.open(path).remove();
    }
  });
});

const detected = Sandbox.detect();
describe.skipIf(!cgroups || detected.sandbox === undefined)('CgroupSlots with the sandbox', () => {
  it('applies each script’s own limits in a reused cgroup', async () => {
    const slots = new CgroupSlots();
    const sandbox = detected.sandbox as Sandbox;
    const limits = async (maxMemoryBytes: number, maxCpuSeconds: number) => {
      const capture = await captureProcess('sh', {
        args: ['-c', `${OWN_CGROUP}; ulimit -d; ulimit -t`],
        cwd: root,
        cgroups: slots,
        spawner: server,
        sandbox: { sandbox, policy: { writable: [root], maxMemoryBytes, maxCpuSeconds } },
      });
      return capture.stdout.text.trim().split('\n');
    };
    const [firstPath, ...first] = await limits(512 * 1024 * 1024, 30);
    const [secondPath, ...second] = await limits(256 * 1024 * 1024, 7);
    expect(secondPath).toBe(firstPath);
    expect(first).toEqual([String(512 * 1024), '30']);
    expect(second).toEqual([String(256 * 1024), '7']);
    expect(slots.size).toBe(1);
    await slots.close();
  });
});
