import { randomUUID } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

/** What a journal records: a group reserved before its spawn, recorded, released, removed. */
const lineSchema = z.discriminatedUnion('op', [
  z.object({
    op: z.literal('reserve'),
    ownerPid: z.number().int(),
    token: z.string(),
    cgroup: z.string().optional(),
  }),
  z.object({
    op: z.literal('add'),
    pgid: z.number().int().positive(),
    ownerPid: z.number().int(),
    token: z.string(),
    cgroup: z.string().optional(),
  }),
  z.object({ op: z.literal('release'), token: z.string() }),
  z.object({ op: z.literal('remove'), pgid: z.number().int().positive() }),
]);

/** One line of a journal. */
export type JournalLine = z.infer<typeof lineSchema>;

/** The groups a journal still holds once its lines are replayed. */
export interface JournalState {
  /** Reserved and not yet recorded with a process group id, by token. */
  pending: Map<string, Extract<JournalLine, { op: 'reserve' }>>;
  /** Recorded and not removed, by process group id. */
  groups: Map<number, Extract<JournalLine, { op: 'add' }>>;
}

/** Journals this process has open (a registry's, or another's in the same process). */
const openHere = new Set<string>();

/**
 * Whether the journal at `path` is still written to: by a live process, or by this one (another
 * registry in this process). A journal that is not may be removed once what it held is reaped.
 *
 * @example
 * ```ts
 * if (!journalWritten(file)) rmSync(file.path, { force: true });
 * ```
 */
export function journalWritten(file: JournalFile): boolean {
  if (file.ownerPid === process.pid) return openHere.has(file.path);
  try {
    process.kill(file.ownerPid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Journal files: `journal-<owner pid>-<uuid>.log`. */
const JOURNAL_FILE = /^journal-(\d+)-[0-9a-f-]{36}\.log$/;
/** Lines written after which a journal is rewritten with only what it still holds. */
const COMPACT_AFTER_LINES = 4096;

/**
 * Applies journal lines in order. A line that is not one (the torn end of a journal whose
 * machine stopped mid-write) is skipped.
 *
 * @example
 * ```ts
 * const state = replayJournal('{"op":"add","pgid":7,"ownerPid":1,"token":"t"}\n');
 * state.groups.get(7)?.token; // 't'
 * ```
 */
export function replayJournal(text: string, state: JournalState = emptyState()): JournalState {
  for (const raw of text.split('\n')) {
    if (raw === '') continue;
    let parsed: ReturnType<typeof lineSchema.safeParse>;
    try {
      parsed = lineSchema.safeParse(JSON.parse(raw));
    } catch {
      continue;
    }
    if (parsed.success) apply(state, parsed.data);
  }
  return state;
}

function emptyState(): JournalState {
  return { pending: new Map(), groups: new Map() };
}

function apply(state: JournalState, line: JournalLine): void {
  switch (line.op) {
    case 'reserve':
      state.pending.set(line.token, line);
      return;
    case 'add':
      state.pending.delete(line.token);
      state.groups.set(line.pgid, line);
      return;
    case 'release':
      state.pending.delete(line.token);
      return;
    case 'remove':
      state.groups.delete(line.pgid);
      return;
  }
}

/** A journal file of the directory with the pid of the process that wrote it. */
export interface JournalFile {
  path: string;
  ownerPid: number;
}

/**
 * The journal files in `dir` (none when it does not exist).
 *
 * @example
 * ```ts
 * for (const { path, ownerPid } of journalFiles('.wharf/process-groups/host')) console.log(path, ownerPid);
 * ```
 */
export function journalFiles(dir: string): JournalFile[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    const pid = JOURNAL_FILE.exec(name)?.[1];
    return pid === undefined ? [] : [{ path: join(dir, name), ownerPid: Number(pid) }];
  });
}

/** What a journal file holds (nothing when it was removed meanwhile). */
export function readJournal(path: string): JournalState {
  try {
    return replayJournal(readFileSync(path, 'utf8'));
  } catch {
    return emptyState();
  }
}

/**
 * This process's journal: one file it appends a line to for each change, through one
 * descriptor opened with `O_APPEND`, written synchronously before the call returns (so a
 * group is on file before its spawn, as a file per group was). A process killed at any point
 * leaves every line it wrote: the kernel holds written data whatever becomes of the writer.
 * Once {@link COMPACT_AFTER_LINES} lines are written, the journal is rewritten to a new file
 * with only the groups it still holds and the old file is removed (a kill in between leaves
 * both, which name the same groups: reaping one twice is harmless).
 *
 * @example
 * ```ts
 * const journal = new ProcessGroupJournal('.wharf/process-groups/host');
 * journal.append({ op: 'reserve', ownerPid: process.pid, token });
 * ```
 */
export class ProcessGroupJournal {
  readonly dir: string;
  #fd: number | undefined;
  #path: string | undefined;
  #lines = 0;
  readonly #state = emptyState();

  constructor(dir: string) {
    this.dir = dir;
  }

  /** The file this journal writes to, once it has written anything. */
  get path(): string | undefined {
    return this.#path;
  }

  /** The groups this journal holds (reserved or recorded, not yet released or removed). */
  get state(): JournalState {
    return this.#state;
  }

  /** Records a change, on file before it returns. */
  append(line: JournalLine): void {
    apply(this.#state, line);
    if (this.#fd === undefined) this.#open();
    writeSync(this.#fd as number, `${JSON.stringify(line)}\n`);
    this.#lines += 1;
    const held = this.#state.pending.size + this.#state.groups.size;
    if (this.#lines >= Math.max(COMPACT_AFTER_LINES, 2 * held)) this.#compact();
  }

  /** Closes the file; the journal reopens a new one on its next line. */
  close(): void {
    if (this.#fd !== undefined) closeSync(this.#fd);
    if (this.#path !== undefined) openHere.delete(this.#path);
    if (this.#path !== undefined && this.#state.pending.size === 0 && this.#state.groups.size === 0) {
      rmSync(this.#path, { force: true });
    }
    this.#fd = undefined;
    this.#path = undefined;
    this.#lines = 0;
  }

  #open(): void {
    mkdirSync(this.dir, { recursive: true });
    const path = join(this.dir, `journal-${process.pid}-${randomUUID()}.log`);
    this.#fd = openSync(path, 'a', 0o600);
    openHere.add(path);
    this.#path = path;
    this.#lines = 0;
  }

  /** A new file with what the journal still holds; then the old one goes. */
  #compact(): void {
    const old = { fd: this.#fd, path: this.#path };
    this.#open();
    const held: JournalLine[] = [...this.#state.pending.values(), ...this.#state.groups.values()];
    if (held.length > 0)
      writeSync(this.#fd as number, held.map((line) => `${JSON.stringify(line)}\n`).join(''));
    this.#lines = held.length;
    if (old.fd !== undefined) closeSync(old.fd);
    if (old.path !== undefined) {
      openHere.delete(old.path);
      rmSync(old.path, { force: true });
    }
  }
}
