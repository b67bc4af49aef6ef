import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The running (not zombie) members of a process group, read from `/proc`; undefined where
 * there is no `/proc` (not Linux).
 *
 * @example
 * ```ts
 * groupMembers(child.pid); // [4242, 4250]
 * ```
 */
export function groupMembers(pgid: number): number[] | undefined {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return undefined;
  }
  const members: number[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // After the parenthesised command: state, ppid, pgrp, …
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(pgrp) === pgid && state !== 'Z' && state !== 'X') members.push(Number(name));
    } catch {
      // exited meanwhile
    }
  }
  return members;
}

/**
 * True while the process group `pgid` has a running member. Zombies (dead, not yet reaped by
 * their parent) do not count; without `/proc` signal 0 probes the group.
 *
 * @example
 * ```ts
 * if (processGroupAlive(child.pid)) console.log('something of the script still runs');
 * ```
 */
export function processGroupAlive(pgid: number): boolean {
  // Signal 0 first: ESRCH means the group has no member at all, not even a zombie, and costs one
  // system call where reading /proc costs one file per process on the machine (a script that
  // left nothing behind, the common case, is answered here).
  try {
    process.kill(-pgid, 0);
  } catch (error) {
    // EPERM: members exist but belong to someone else; they are alive all the same.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  // Something answered, perhaps only zombies: /proc tells them apart where there is one.
  const members = groupMembers(pgid);
  return members === undefined ? true : members.length > 0;
}

/** Options of {@link terminateProcessGroup}. */
export interface TerminateGroupOptions {
  /** First signal (default SIGTERM). */
  signal?: NodeJS.Signals;
  /** How long members get to exit after the first signal before SIGKILL (default 2000). */
  graceMs?: number;
  /** How often to look whether the group is gone (default 25). */
  pollMs?: number;
}

/**
 * Ends every member of a process group: `signal` (SIGTERM) to the group, then SIGKILL to
 * whatever is left after `graceMs`. Resolves true once the group is empty, false if members
 * the caller may not signal are still there. Processes that left the group (`setsid`,
 * `setpgid`) are out of reach: a process group is all POSIX offers without cgroups.
 *
 * @example
 * ```ts
 * await terminateProcessGroup(child.pid, { graceMs: 500 });
 * ```
 */
export async function terminateProcessGroup(
  pgid: number,
  options: TerminateGroupOptions = {},
): Promise<boolean> {
  const pollMs = options.pollMs ?? 25;
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-pgid, signal);
    } catch {
      // gone already, or not ours
    }
  };
  if (!processGroupAlive(pgid)) return true;
  signalGroup(options.signal ?? 'SIGTERM');
  const deadline = Date.now() + (options.graceMs ?? 2_000);
  while (Date.now() < deadline) {
    if (!processGroupAlive(pgid)) return true;
    await sleep(pollMs);
  }
  signalGroup('SIGKILL');
  for (let tries = 0; tries < 40; tries++) {
    if (!processGroupAlive(pgid)) return true;
    await sleep(pollMs);
  }
  return !processGroupAlive(pgid);
}
