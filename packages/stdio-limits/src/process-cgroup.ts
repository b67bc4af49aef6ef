import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Shell line that moves the shell into the cgroup whose directory is `$0` and checks that it
 * got there (its own `/proc/self/cgroup` names `$1`, the cgroup's path in the hierarchy), then
 * becomes the command (`exec "$@"` after the shift): the command starts inside the cgroup,
 * before it can fork anything. A move that fails is said on stderr and ends the shell with
 * exit 125, before the command runs: never a command that only looks contained.
 */
const ENTER =
  'echo $$ > "$0/cgroup.procs" 2>/dev/null; c=; while read -r l; do case $l in 0::*) c=$l;; esac; done < /proc/self/cgroup; ' +
  '[ "$c" = "0::$1" ] || { echo "wharf: could not move the process into its cgroup $0; it was not started" >&2; exit 125; }; shift; exec "$@"';

/** Exit status of a command whose shell could not enter its cgroup (see `ProcessCgroup.wrap`). */
export const CGROUP_ENTER_FAILED = 125;

/** How long a failed cgroup check stands before the next `create` checks again. */
export const CGROUP_RECHECK_MS = 60_000;

/** A cgroup v2 directory this process may use: where it is mounted and its path in the hierarchy. */
interface CgroupBase {
  /** The directory (under the cgroup2 mount). */
  readonly dir: string;
  /** Its path in the hierarchy, as `/proc/<pid>/cgroup` shows it (`/` for the root). */
  readonly hierarchyPath: string;
}

/** This process's own cgroup v2 directory, when the cgroup2 filesystem is mounted (Linux). */
function ownCgroup(): CgroupBase | undefined {
  if (process.platform !== 'linux') return undefined;
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
      return undefined;
    return { dir: join(point, own.slice(root.length)), hierarchyPath: own };
  } catch {
    return undefined;
  }
}

/**
 * Whether processes can be contained under `base`: a cgroup made there, a short-lived shell
 * moved into it by the same line `wrap` uses, and its own `/proc/self/cgroup` checked, then the
 * cgroup removed. Making a directory is not enough: a delegation can allow `mkdir` and still
 * refuse the move, and a directory that is no cgroup at all takes any file written into it.
 *
 * @example
 * ```ts
 * canContainUnder({ dir: '/sys/fs/cgroup/worker', hierarchyPath: '/worker' }); // true where cgroups work
 * ```
 */
export function canContainUnder(base: CgroupBase): boolean {
  const name = `wharf-probe-${process.pid}-${randomUUID()}`;
  const probe = join(base.dir, name);
  try {
    mkdirSync(probe);
  } catch {
    return false;
  }
  try {
    const moved = spawnSync('/bin/sh', ['-c', ENTER, probe, hierarchyChild(base, name), 'true'], {
      stdio: 'ignore',
      timeout: 5_000,
    });
    return moved.status === 0;
  } finally {
    removeSoon(probe);
  }
}

/** The hierarchy path of `name` under `base`. */
function hierarchyChild(base: CgroupBase, name: string): string {
  return base.hierarchyPath === '/' ? `/${name}` : `${base.hierarchyPath}/${name}`;
}

/** Removes an empty cgroup; an exited member can hold it a moment (EBUSY), so a few tries. */
function removeSoon(path: string): void {
  for (let tries = 0; tries < 20; tries++) {
    try {
      rmdirSync(path);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EBUSY') return;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
    }
  }
}

/**
 * Whether cgroups can be used, checked on first use: a success stands for the process's life,
 * a failure for {@link CGROUP_RECHECK_MS} (a delegation granted after the worker started, a
 * cgroup filesystem mounted late, are then taken up).
 */
class CgroupSupport {
  #base: CgroupBase | null | undefined;
  #checkedAt = 0;

  base(): CgroupBase | null {
    if (this.#base !== undefined && (this.#base !== null || Date.now() - this.#checkedAt < CGROUP_RECHECK_MS))
      return this.#base;
    const own = ownCgroup();
    this.#base = own !== undefined && canContainUnder(own) ? own : null;
    this.#checkedAt = Date.now();
    return this.#base;
  }
}

const support = new CgroupSupport();

/**
 * The directory every cgroup of this process is made in (its own cgroup v2 directory, where
 * processes can be contained), or undefined. What a recorded cgroup must lie in to be ended.
 *
 * @example
 * ```ts
 * cgroupParentDir(); // '/sys/fs/cgroup/system.slice/worker.service', or undefined
 * ```
 */
export function cgroupParentDir(): string | undefined {
  return support.base()?.dir;
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
  /** Its path in the cgroup hierarchy (what `/proc/<pid>/cgroup` of a member shows). */
  readonly #hierarchyPath: string | undefined;

  private constructor(path: string, hierarchyPath?: string) {
    this.path = path;
    this.#hierarchyPath = hierarchyPath;
  }

  /** Whether this process can contain processes in cgroups (see {@link canContainUnder}). */
  static available(): boolean {
    return support.base() !== null;
  }

  /** A new, empty cgroup under this process's own, or undefined where cgroups are not available. */
  static create(): ProcessCgroup | undefined {
    const base = support.base();
    if (base === null) return undefined;
    const name = `wharf-${process.pid}-${randomUUID()}`;
    try {
      mkdirSync(join(base.dir, name));
    } catch {
      return undefined;
    }
    return new ProcessCgroup(join(base.dir, name), hierarchyChild(base, name));
  }

  /** A cgroup created earlier (for example by a process that died), to end and remove it. */
  static open(path: string): ProcessCgroup {
    return new ProcessCgroup(path);
  }

  /**
   * The command line that runs `command args` inside this cgroup: `/bin/sh` moves itself in,
   * checks it is there, then execs the command, so the command's pid is the shell's. Where the
   * move fails the command does not run: the shell exits {@link CGROUP_ENTER_FAILED}, saying why
   * on stderr. Only for a cgroup from {@link ProcessCgroup.create}.
   */
  wrap(command: string, args: readonly string[]): [string, string[]] {
    if (this.#hierarchyPath === undefined)
      throw new Error(`cgroup ${this.path} was opened, not created: it runs nothing`);
    return ['/bin/sh', ['-c', ENTER, this.path, this.#hierarchyPath, command, ...args]];
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
