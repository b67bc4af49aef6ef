import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Shell line that moves the shell into the cgroup whose `cgroup.procs` is `$0`, then becomes
 * the command (`exec "$@"`): the command starts inside the cgroup, before it can fork anything.
 */
const ENTER = 'echo $$ > "$0" 2>/dev/null; exec "$@"';

let parent: string | null | undefined;

/**
 * Where this process may create cgroups: its own cgroup v2 directory, when the cgroup2
 * filesystem is mounted and that directory is writable (Linux, as root or with a delegated
 * cgroup). Null elsewhere. Found once per process.
 */
function cgroupParent(): string | null {
  if (parent !== undefined) return parent;
  parent = null;
  if (process.platform !== 'linux') return parent;
  try {
    const own = readFileSync('/proc/self/cgroup', 'utf8')
      .split('\n')
      .find((line) => line.startsWith('0::'))
      ?.slice(3);
    // mountinfo: id parent major:minor root mount-point options … - fstype source options
    const mount = readFileSync('/proc/self/mountinfo', 'utf8')
      .split('\n')
      .map((line) => line.split(' '))
      .find((fields) => fields[fields.indexOf('-') + 1] === 'cgroup2');
    const [root, point] = [mount?.[3], mount?.[4]];
    if (own === undefined || root === undefined || point === undefined || !own.startsWith(root))
      return parent;
    const candidate = join(point, own.slice(root.length));
    // Probe once: a directory made and removed again.
    const probe = join(candidate, `wharf-probe-${process.pid}-${randomUUID()}`);
    mkdirSync(probe);
    rmdirSync(probe);
    parent = candidate;
  } catch {
    parent = null;
  }
  return parent;
}

/**
 * A cgroup v2 holding one captured process tree. Every process the command starts stays in it,
 * whatever it does to its session or process group (`setsid`, double forks), so the whole tree
 * can be listed, signalled and killed. Linux only, and only where the worker may create cgroups
 * (its own cgroup v2 directory is writable: root on a host or VM, or a delegated cgroup);
 * {@link ProcessCgroup.create} returns undefined elsewhere and callers fall back to the
 * process group.
 *
 * @example
 * ```ts
 * const cgroup = ProcessCgroup.create();
 * const [command, args] = cgroup ? cgroup.wrap('sh', ['-c', script]) : ['sh', ['-c', script]];
 * const child = spawn(command, args, { detached: true });
 * // … once the child has exited:
 * if (cgroup?.populated()) await cgroup.terminate({ graceMs: 2000 });
 * await cgroup?.remove();
 * ```
 */
export class ProcessCgroup {
  /** The cgroup's directory. */
  readonly path: string;

  private constructor(path: string) {
    this.path = path;
  }

  /** Whether this process can create cgroups (see {@link ProcessCgroup}). */
  static available(): boolean {
    return cgroupParent() !== null;
  }

  /** A new, empty cgroup under this process's own, or undefined where cgroups are not available. */
  static create(): ProcessCgroup | undefined {
    const base = cgroupParent();
    if (base === null) return undefined;
    const path = join(base, `wharf-${process.pid}-${randomUUID()}`);
    try {
      mkdirSync(path);
    } catch {
      return undefined;
    }
    return new ProcessCgroup(path);
  }

  /** A cgroup created earlier (for example by a process that died), to end and remove it. */
  static open(path: string): ProcessCgroup {
    return new ProcessCgroup(path);
  }

  /**
   * The command line that runs `command args` inside this cgroup: `/bin/sh` moves itself in,
   * then execs the command, so the command's pid is the shell's.
   */
  wrap(command: string, args: readonly string[]): [string, string[]] {
    return ['/bin/sh', ['-c', ENTER, join(this.path, 'cgroup.procs'), command, ...args]];
  }

  /** Pids of the processes in the cgroup. */
  pids(): number[] {
    try {
      return readFileSync(join(this.path, 'cgroup.procs'), 'utf8')
        .split('\n')
        .filter((line) => line !== '')
        .map(Number);
    } catch {
      return [];
    }
  }

  /** True while a process runs in the cgroup. */
  populated(): boolean {
    try {
      return /^populated 1$/m.test(readFileSync(join(this.path, 'cgroup.events'), 'utf8'));
    } catch {
      return false;
    }
  }

  /** Sends `signal` to every process in the cgroup; SIGKILL goes through `cgroup.kill` where there is one. */
  signal(signal: NodeJS.Signals): void {
    if (signal === 'SIGKILL') {
      try {
        writeFileSync(join(this.path, 'cgroup.kill'), '1');
        return;
      } catch {
        // kernels before 5.14: one by one below
      }
    }
    for (const pid of this.pids()) {
      try {
        process.kill(pid, signal);
      } catch {
        // gone meanwhile
      }
    }
  }

  /**
   * Ends every process in the cgroup: SIGTERM, then SIGKILL to what is left after `graceMs`.
   * Resolves true once the cgroup is empty.
   */
  async terminate(options: { graceMs?: number; pollMs?: number } = {}): Promise<boolean> {
    const pollMs = options.pollMs ?? 25;
    if (!this.populated()) return true;
    this.signal('SIGTERM');
    const deadline = Date.now() + (options.graceMs ?? 2_000);
    while (Date.now() < deadline) {
      if (!this.populated()) return true;
      await sleep(pollMs);
    }
    this.signal('SIGKILL');
    for (let tries = 0; tries < 40; tries++) {
      if (!this.populated()) return true;
      await sleep(pollMs);
    }
    return !this.populated();
  }

  /**
   * Removes the cgroup once it is empty (killing whatever still runs in it). A process that just
   * exited can hold it for a moment (EBUSY) until its parent reaps it, so removal is retried for
   * up to a second.
   */
  async remove(): Promise<void> {
    if (this.populated()) await this.terminate({ graceMs: 0 });
    for (let tries = 0; tries < 40; tries++) {
      try {
        rmdirSync(this.path);
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EBUSY') return;
        await sleep(25);
      }
    }
  }
}
