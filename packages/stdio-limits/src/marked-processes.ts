import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The pids of this user's processes whose environment holds `name=value`, read from `/proc`
 * (every process started with that variable, and whatever they started that kept it, wherever
 * they went: another process group, another session). Undefined where there is no `/proc`.
 *
 * @example
 * ```ts
 * markedProcesses('WHARF_SPAWN_HELPER', helperId); // [4242, 4250]
 * ```
 */
export function markedProcesses(name: string, value: string): number[] | undefined {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return undefined;
  }
  const needle = `${name}=${value}`;
  const found: number[] = [];
  for (const entry of names) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0').includes(needle))
        found.push(Number(entry));
    } catch {
      // exited meanwhile, or not ours
    }
  }
  return found;
}

/** Options of {@link killMarkedProcesses}. */
export interface KillMarkedOptions {
  /** Pause between two looks, so that a process forked just before can show its environment (default 50). */
  pollMs?: number;
  /** Looks at most (default 20). */
  maxRounds?: number;
}

/**
 * SIGKILLs every process whose environment holds `name=value` (see {@link markedProcesses}),
 * looking again after each round until a look finds none: a process that was forked but had
 * not yet exec'd its command at the first look carries its parent's environment, not the
 * marker, for a moment. Returns how many processes were signalled (0 without `/proc`).
 *
 * @example
 * ```ts
 * await killMarkedProcesses('WHARF_SPAWN_HELPER', helperId);
 * ```
 */
export async function killMarkedProcesses(
  name: string,
  value: string,
  options: KillMarkedOptions = {},
): Promise<number> {
  const signalled = new Set<number>();
  const maxRounds = options.maxRounds ?? 20;
  for (let round = 0; round < maxRounds; round++) {
    const found = markedProcesses(name, value) ?? [];
    for (const pid of found) {
      try {
        process.kill(pid, 'SIGKILL');
        signalled.add(pid);
      } catch {
        // gone meanwhile
      }
    }
    // Two looks at least: the first may come before a fork has exec'd.
    if (found.length === 0 && round > 0) break;
    await sleep(options.pollMs ?? 50);
  }
  return signalled.size;
}
