import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { killMarkedProcesses } from './marked-processes.js';
import { cgroupParentDir, ProcessCgroup } from './process-cgroup.js';
import { groupMembers, processGroupAlive, terminateProcessGroup } from './process-group.js';
import {
  type JournalLine,
  journalFiles,
  journalWritten,
  ProcessGroupJournal,
  readJournal,
} from './process-group-journal.js';

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
 * A record of the running process groups under a directory (`captureProcess({ registry })`),
 * so that groups a killed worker left behind can be ended when it starts again: a pidfile
 * reaper (Node has no `prctl(PR_SET_PDEATHSIG)`). Records live in a per-host subdirectory
 * (a process group id only means something on its host), name the process that owns them
 * (records of another live process are left alone), and carry a token that every member
 * inherits in `WHARF_PROCESS_GROUP`; on Linux a group is only signalled when a member still
 * carries it, so a recycled id never hits an unrelated group.
 *
 * Each process appends its records to a journal of its own (`journal-<pid>-<uuid>.log`, see
 * {@link ProcessGroupJournal}): one write on an open descriptor per change, where a file per
 * group cost a `mkdir`, an `open`, a `write`, a `close` and an `unlink` on the worker's main
 * thread for every script. What a process killed at any point leaves is its journal, every
 * line it wrote in it: the groups reserved or recorded and not yet released or removed are
 * what `reap()` ends. Files of one group each (`<pgid>.json`, `pending-<token>.json`), as
 * earlier versions wrote them, are still read and reaped.
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
  readonly #journal: ProcessGroupJournal;

  constructor(root: string) {
    this.dir = join(root, hostname());
    this.#journal = new ProcessGroupJournal(this.dir);
  }

  /**
   * Records a group before it is spawned, by the token (a UUID) its members will carry: an owner
   * killed between the spawn and {@link ProcessGroupRegistry.add} still leaves a record, and
   * `reap()` ends the processes that carry the token. `add` replaces it.
   */
  reserve(token: string, cgroup?: string): void {
    if (!TOKEN.test(token)) throw new TypeError(`a group's token is a UUID, not ${JSON.stringify(token)}`);
    this.#journal.append({
      op: 'reserve',
      ownerPid: process.pid,
      token,
      ...(cgroup === undefined ? {} : { cgroup }),
    });
  }

  /** Forgets a reserved group that was never spawned. */
  release(token: string): void {
    if (this.#journal.state.pending.has(token)) this.#journal.append({ op: 'release', token });
  }

  /** Records a running group (and its cgroup, if any); returns the token its members must carry. */
  add(pgid: number, token: string = randomUUID(), cgroup?: string): string {
    this.#journal.append({
      op: 'add',
      pgid,
      ownerPid: process.pid,
      token,
      ...(cgroup === undefined ? {} : { cgroup }),
    });
    return token;
  }

  /** Forgets a group that ended. */
  remove(pgid: number): void {
    if (this.#journal.state.groups.has(pgid)) this.#journal.append({ op: 'remove', pgid });
  }

  /** Recorded groups (unreadable records are skipped). */
  entries(): ProcessGroupEntry[] {
    return this.#records().flatMap((record) => record.groups);
  }

  /**
   * Ends the recorded groups whose owner is dead (or is this process, or any owner with
   * `includeLiveOwners`) and forgets them; a group that ran in a cgroup loses every process of
   * the cgroup, those that left the group with `setsid` too. Returns the process group ids it
   * signalled.
   */
  async reap(options: ReapOptions = {}): Promise<number[]> {
    const reaped: number[] = [];
    const graceMs = options.graceMs ?? 2_000;
    for (const record of this.#records()) {
      for (const entry of record.groups) {
        if (!mayReap(entry, options)) continue;
        const cgroup = recordedCgroup(entry);
        const groupAlive = processGroupAlive(entry.pgid) && carriesToken(entry);
        const cgroupAlive = cgroup?.populated() ?? false;
        await Promise.all([
          groupAlive ? terminateProcessGroup(entry.pgid, { graceMs }) : undefined,
          cgroupAlive ? cgroup?.terminate({ graceMs }) : undefined,
        ]);
        await cgroup?.remove();
        if ((groupAlive || cgroupAlive) && !reaped.includes(entry.pgid)) reaped.push(entry.pgid);
        record.forgetGroup(entry);
      }
      for (const entry of record.pending) {
        if (!mayReap(entry, options)) continue;
        // Spawned or not, nothing but its own processes carries the token: those are ended.
        const cgroup = recordedCgroup(entry);
        await killMarkedProcesses(PROCESS_GROUP_TOKEN_ENV, entry.token, { maxRounds: 3 });
        if (cgroup?.populated()) await cgroup.terminate({ graceMs: 0 });
        await cgroup?.remove();
        record.forgetPending(entry);
      }
      record.done();
    }
    return reaped;
  }

  /**
   * What is on file: this process's journal, the journals of other processes, and the files
   * of one group each that earlier versions wrote, with how each forgets what was reaped.
   */
  #records(): RegistryRecord[] {
    const own = this.#journal;
    const records: RegistryRecord[] = [
      {
        groups: entriesOf(own.state.groups.values()),
        pending: pendingOf(own.state.pending.values()),
        forgetGroup: (entry) => this.remove(entry.pgid),
        forgetPending: (entry) => this.release(entry.token),
        done: () => undefined,
      },
    ];
    for (const file of journalFiles(this.dir)) {
      if (file.path === own.path) continue;
      const state = readJournal(file.path);
      const groups = entriesOf(state.groups.values());
      const pending = pendingOf(state.pending.values());
      let left = groups.length + pending.length;
      const forget = () => {
        left -= 1;
      };
      // Only a journal nobody writes to goes (once everything it held is reaped): a live
      // writer, another registry of this process too, appends to its file, which must stay
      // where reap() reads it.
      const writerDead = !journalWritten(file);
      records.push({
        groups,
        pending,
        forgetGroup: forget,
        forgetPending: forget,
        done: () => {
          if (left === 0 && writerDead) rmSync(file.path, { force: true });
        },
      });
    }
    records.push({
      groups: readRecords(this.dir, (file) => !file.startsWith(PENDING_PREFIX), entrySchema),
      pending: readRecords(this.dir, (file) => file.startsWith(PENDING_PREFIX), pendingSchema),
      forgetGroup: (entry) => rmSync(join(this.dir, `${entry.pgid}.json`), { force: true }),
      forgetPending: (entry) =>
        rmSync(join(this.dir, `${PENDING_PREFIX}${entry.token}.json`), { force: true }),
      done: () => undefined,
    });
    return records;
  }
}

/** Groups on file in one place, and how to forget one there once it is reaped. */
interface RegistryRecord {
  groups: ProcessGroupEntry[];
  pending: PendingEntry[];
  forgetGroup: (entry: ProcessGroupEntry) => void;
  forgetPending: (entry: PendingEntry) => void;
  done: () => void;
}

/** A journal's recorded groups as entries, each checked as a group's file is (a planted line is skipped). */
function entriesOf(lines: Iterable<Extract<JournalLine, { op: 'add' }>>): ProcessGroupEntry[] {
  return [...lines].flatMap(({ op: _op, ...entry }) => {
    const parsed = entrySchema.safeParse(entry);
    return parsed.success ? [parsed.data] : [];
  });
}

/** A journal's reserved groups, checked as a reservation's file is. */
function pendingOf(lines: Iterable<Extract<JournalLine, { op: 'reserve' }>>): PendingEntry[] {
  return [...lines].flatMap(({ op: _op, ...entry }) => {
    const parsed = pendingSchema.safeParse(entry);
    return parsed.success ? [parsed.data] : [];
  });
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
