import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { killMarkedProcesses } from './marked-processes.js';
import { cgroupParentDir, ProcessCgroup } from './process-cgroup.js';
import { groupMembers, processGroupAlive, terminateProcessGroup } from './process-group.js';

/** Environment variable marking every process of a registered group with its entry's token. */
export const PROCESS_GROUP_TOKEN_ENV = 'WHARF_PROCESS_GROUP';

const entrySchema = z.object({
  pgid: z.number().int().positive(),
  ownerPid: z.number().int(),
  token: z.string(),
  /** The group's cgroup, when it ran in one (see `ProcessCgroup`). */
  cgroup: z
    .string()
    .regex(/\/wharf-\d+-[0-9a-f-]{36}$/)
    .optional(),
});

/** One recorded process group. */
export type ProcessGroupEntry = z.infer<typeof entrySchema>;

/** A group about to start: recorded before its spawn, by the token its members will carry. */
const TOKEN = /^[0-9a-f-]{36}$/;
const pendingSchema = entrySchema.omit({ pgid: true }).extend({ token: z.string().regex(TOKEN) });
type PendingEntry = z.infer<typeof pendingSchema>;
const PENDING_PREFIX = 'pending-';

/** Options of {@link ProcessGroupRegistry.reap}. */
export interface ReapOptions {
  /** Grace between SIGTERM and SIGKILL (default 2000). */
  graceMs?: number;
  /** Reap entries of live owners too (the owner itself is shutting down). Default false. */
  includeLiveOwners?: boolean;
}

/**
 * Files under a directory, one per running process group (`captureProcess({ registry })`),
 * so that groups a killed worker left behind can be ended when it starts again: a pidfile
 * reaper (Node has no `prctl(PR_SET_PDEATHSIG)`). Entries live in a per-host subdirectory
 * (a process group id only means something on its host), name the process that owns them
 * (entries of another live process are left alone), and carry a token that every member
 * inherits in `WHARF_PROCESS_GROUP`; on Linux a group is only signalled when a member still
 * carries it, so a recycled id never hits an unrelated group.
 *
 * @example
 * ```ts
 * const registry = new ProcessGroupRegistry('.wharf/process-groups');
 * await registry.reap(); // leftovers of a worker that was SIGKILLed
 * await captureProcess('sh', { args: ['-c', script], registry });
 * ```
 */
export class ProcessGroupRegistry {
  readonly dir: string;

  constructor(root: string) {
    this.dir = join(root, hostname());
  }

  /**
   * Records a group before it is spawned, by the token (a UUID) its members will carry: an owner
   * killed between the spawn and {@link ProcessGroupRegistry.add} still leaves a record, and
   * `reap()` ends the processes that carry the token. `add` replaces it.
   */
  reserve(token: string, cgroup?: string): void {
    if (!TOKEN.test(token)) throw new TypeError(`a group's token is a UUID, not ${JSON.stringify(token)}`);
    mkdirSync(this.dir, { recursive: true });
    const entry: PendingEntry = { ownerPid: process.pid, token, ...(cgroup === undefined ? {} : { cgroup }) };
    writeFileSync(join(this.dir, `${PENDING_PREFIX}${token}.json`), JSON.stringify(entry));
  }

  /** Forgets a reserved group that was never spawned. */
  release(token: string): void {
    if (TOKEN.test(token)) rmSync(join(this.dir, `${PENDING_PREFIX}${token}.json`), { force: true });
  }

  /** Records a running group (and its cgroup, if any); returns the token its members must carry. */
  add(pgid: number, token: string = randomUUID(), cgroup?: string): string {
    mkdirSync(this.dir, { recursive: true });
    const entry: ProcessGroupEntry = {
      pgid,
      ownerPid: process.pid,
      token,
      ...(cgroup === undefined ? {} : { cgroup }),
    };
    writeFileSync(join(this.dir, `${pgid}.json`), JSON.stringify(entry));
    this.release(token);
    return token;
  }

  /** Forgets a group that ended. */
  remove(pgid: number): void {
    rmSync(join(this.dir, `${pgid}.json`), { force: true });
  }

  /** Recorded groups (unreadable entries are skipped). */
  entries(): ProcessGroupEntry[] {
    return readRecords(this.dir, (file) => !file.startsWith(PENDING_PREFIX), entrySchema);
  }

  /**
   * Ends the recorded groups whose owner is dead (or is this process, or any owner with
   * `includeLiveOwners`) and forgets them; a group that ran in a cgroup loses every process of
   * the cgroup, those that left the group with `setsid` too. Returns the process group ids it
   * signalled.
   */
  async reap(options: ReapOptions = {}): Promise<number[]> {
    const reaped: number[] = [];
    for (const entry of this.entries()) {
      if (!mayReap(entry, options)) continue;
      const graceMs = options.graceMs ?? 2_000;
      const cgroup = recordedCgroup(entry);
      const groupAlive = processGroupAlive(entry.pgid) && carriesToken(entry);
      const cgroupAlive = cgroup?.populated() ?? false;
      await Promise.all([
        groupAlive ? terminateProcessGroup(entry.pgid, { graceMs }) : undefined,
        cgroupAlive ? cgroup?.terminate({ graceMs }) : undefined,
      ]);
      await cgroup?.remove();
      if (groupAlive || cgroupAlive) reaped.push(entry.pgid);
      this.remove(entry.pgid);
    }
    for (const entry of this.pendingEntries()) {
      if (!mayReap(entry, options)) continue;
      // Spawned or not, nothing but its own processes carries the token: those are ended.
      const cgroup = recordedCgroup(entry);
      await killMarkedProcesses(PROCESS_GROUP_TOKEN_ENV, entry.token, { maxRounds: 3 });
      if (cgroup?.populated()) await cgroup.terminate({ graceMs: 0 });
      await cgroup?.remove();
      this.release(entry.token);
    }
    return reaped;
  }

  /** Groups reserved and not (yet) recorded with their process group id. */
  private pendingEntries(): PendingEntry[] {
    return readRecords(this.dir, (file) => file.startsWith(PENDING_PREFIX), pendingSchema);
  }
}

/**
 * The entry's cgroup, when it is one this registry's processes could have made: a directory
 * `wharf-<owner pid>-<uuid>` right under this process's own cgroup directory. An entry naming
 * anything else (a planted file pointing at a directory that lists other processes) has its
 * cgroup ignored: only the path's shape was checked when it was read.
 */
function recordedCgroup(entry: Pick<ProcessGroupEntry, 'cgroup' | 'ownerPid'>): ProcessCgroup | undefined {
  if (entry.cgroup === undefined) return undefined;
  const parent = cgroupParentDir();
  if (parent === undefined) return undefined;
  const path = resolve(entry.cgroup);
  if (dirname(path) !== resolve(parent)) return undefined;
  if (!new RegExp(`^wharf-${entry.ownerPid}-[0-9a-f-]{36}$`).test(basename(path))) return undefined;
  return ProcessCgroup.open(path);
}

/**
 * The `.json` records of `dir` whose names `pick` takes, each checked by `schema`; a record that
 * is not one is removed, one removed meanwhile skipped.
 */
function readRecords<T>(dir: string, pick: (file: string) => boolean, schema: z.ZodType<T>): T[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const records: T[] = [];
  for (const name of names.filter((file) => file.endsWith('.json') && pick(file))) {
    try {
      const parsed = schema.safeParse(JSON.parse(readFileSync(join(dir, name), 'utf8')));
      if (parsed.success) records.push(parsed.data);
      else rmSync(join(dir, name), { force: true });
    } catch {
      // removed meanwhile
    }
  }
  return records;
}

/** Whether `reap` ends an entry: its owner is dead, or is this process, or live owners are asked for. */
function mayReap(entry: { readonly ownerPid: number }, options: ReapOptions): boolean {
  const ownerAlive = entry.ownerPid !== process.pid && pidAlive(entry.ownerPid);
  return !ownerAlive || options.includeLiveOwners === true;
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether a member of the group still carries the entry's token. Without `/proc` (not Linux)
 * nothing can be checked and the group is taken to be the recorded one.
 */
function carriesToken(entry: ProcessGroupEntry): boolean {
  const members = groupMembers(entry.pgid);
  if (members === undefined) return true;
  const needle = `${PROCESS_GROUP_TOKEN_ENV}=${entry.token}`;
  return members.some((pid) => {
    try {
      return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(needle);
    } catch {
      return false;
    }
  });
}
