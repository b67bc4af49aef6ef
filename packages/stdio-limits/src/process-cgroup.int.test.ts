import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CGROUP_ENTER_FAILED, canContainUnder, cgroupParentDir, ProcessCgroup } from './process-cgroup.js';
import { terminateProcessGroup } from './process-group.js';
import { ProcessGroupRegistry } from './process-group-registry.js';

/** Whether a process runs (a zombie counts as gone). */
function alive(pid: number): boolean {
  try {
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z');
  } catch {
    return false;
  }
}

describe('cgroup containment that cannot fail silently', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wharf-cgroup-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('a directory where cgroups can be made but no process moved is not taken for containment', () => {
    // A plain directory takes mkdir and any file written into it, as a delegation that allows
    // mkdir but refuses the move does: only the moved process's own /proc/self/cgroup tells.
    expect(canContainUnder({ dir, hierarchyPath: '/wharf-fake' })).toBe(false);
  });

  it.skipIf(process.platform !== 'linux' || cgroupParentDir() === undefined)(
    'a command whose shell cannot enter its cgroup does not run, and says why',
    async () => {
      const cgroup = ProcessCgroup.create() as ProcessCgroup;
      const marker = join(dir, 'ran');
      const [command, args] = cgroup.wrap('/bin/sh', ['-c', `touch ${marker}`]);
      // The cgroup is gone before the shell starts: the move fails.
      await cgroup.remove();
      const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect(code).toBe(CGROUP_ENTER_FAILED);
      expect(stderr).toContain('could not move the process into its cgroup');
      expect(() => readFileSync(marker)).toThrow();
    },
  );

  it.skipIf(process.platform !== 'linux')(
    'a planted registry entry naming a fake cgroup never gets an unrelated process signalled',
    async () => {
      const bystander = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
      bystander.unref();
      const pid = bystander.pid as number;
      try {
        // A directory shaped like a cgroup of a dead owner, listing the bystander as its member.
        const fake = join(dir, 'fake', 'wharf-99999999-00000000-0000-0000-0000-000000000000');
        mkdirSync(fake, { recursive: true });
        writeFileSync(join(fake, 'cgroup.procs'), `${pid}\n`);
        writeFileSync(join(fake, 'cgroup.events'), 'populated 1\nfrozen 0\n');
        const registry = new ProcessGroupRegistry(join(dir, 'process-groups'));
        mkdirSync(registry.dir, { recursive: true });
        writeFileSync(
          join(registry.dir, '4242.json'),
          JSON.stringify({ pgid: 4242, ownerPid: 99_999_999, token: 'planted', cgroup: fake }),
        );
        await registry.reap({ graceMs: 50 });
        await new Promise((resolve) => setTimeout(resolve, 100));
        expect(alive(pid)).toBe(true);
        expect(registry.entries()).toEqual([]);
      } finally {
        await terminateProcessGroup(pid, { graceMs: 0 });
      }
    },
  );
});
