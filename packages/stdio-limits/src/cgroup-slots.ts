import { readdirSync, rmdirSync } from 'node:fs';
import { join } from 'node:path';
import { cgroupParentDir, ProcessCgroup } from './process-cgroup.js';
import type { ProcessGroupRegistry } from './process-group-registry.js';

/** The name every cgroup of a Wharf process has: `wharf-<owner pid>-<uuid>`. */
const CGROUP_NAME = /^wharf-(\d+)-[0-9a-f-]{36}$/;

/** Every open {@link CgroupSlots} of this process, whose idle cgroups go when it exits. */
const open = new Set<CgroupSlots>();
let exitHook = false;

/**
 * The cgroups of one worker's script slots, each emptied and reused from script to script
 * instead of one made (`mkdir`) and removed (`rmdir`) in cgroupfs per script: at most as many
 * as scripts ran at once. A cgroup is only handed out empty: {@link CgroupSlots.release} kills
 * whatever a script left in it (`cgroup.kill`, else SIGKILL to each process) and waits for
 * `populated 0` in its `cgroup.events`; one that does not empty is removed, never reused. So a
 * script never shares its cgroup with another script's processes, and what it signals through
 * it is its own. Before reuse the cgroup is also thawed, cleared of cgroups a script made inside
 * it, and its controllers' limits set back to the kernel's defaults (see
 * `ProcessCgroup.prepareForReuse`; Wharf sets none: a script's memory, process and CPU limits
 * are rlimits its sandbox applies to each process, anew). `memory.peak` carries over from script
 * to script (the kernel resets it only for the file descriptor that writes it); Wharf reads no
 * cgroup accounting.
 *
 * With a `registry`, each cgroup is recorded there once, when it is made
 * (`ProcessGroupRegistry.addCgroup`), and forgotten when it is removed: a restarted worker's
 * `reap()` ends whatever a killed one left running in its slots, and a capture in a slot writes
 * no record of its own (see `captureProcess`'s `cgroups`).
 *
 * {@link CgroupSlots.close} removes them (stop the worker first); those idle when the process
 * exits are removed then, and those a killed process left empty are removed by the next
 * `CgroupSlots` of the same parent cgroup (or by the registry's `reap()`).
 *
 * @example
 * ```ts
 * const slots = new CgroupSlots({ registry: new ProcessGroupRegistry('.wharf/process-groups') });
 * await captureProcess('sh', { args: ['-c', script], cgroups: slots }); // takes a slot, empties it, gives it back
 * await slots.close();
 * ```
 */
export class CgroupSlots {
  readonly #idle: ProcessCgroup[] = [];
  readonly #busy = new Set<ProcessCgroup>();
  #closed = false;
  #swept = false;
  /** Where each cgroup is recorded while it exists, if anywhere. */
  readonly registry: ProcessGroupRegistry | undefined;

  constructor(options: { registry?: ProcessGroupRegistry } = {}) {
    this.registry = options.registry;
    open.add(this);
    if (!exitHook) {
      exitHook = true;
      process.once('exit', () => {
        for (const slots of open) slots.#removeIdleSync();
      });
    }
  }

  /** Cgroups held: idle and in use. */
  get size(): number {
    return this.#idle.length + this.#busy.size;
  }

  /** Cgroups idle, empty and ready for the next script. */
  get idle(): number {
    return this.#idle.length;
  }

  /**
   * An empty cgroup for one script: an idle one, else a new one; undefined where cgroups are not
   * available (see `ProcessCgroup.create`) or once closed. Give it back with
   * {@link CgroupSlots.release} when the script's capture has ended.
   */
  acquire(): ProcessCgroup | undefined {
    if (this.#closed) return undefined;
    if (!this.#swept) {
      this.#swept = true;
      removeAbandoned();
    }
    let cgroup = this.#idle.pop();
    if (cgroup === undefined) {
      cgroup = ProcessCgroup.create();
      if (cgroup === undefined) return undefined;
      try {
        this.registry?.addCgroup(cgroup.path);
      } catch (error) {
        void cgroup.remove();
        throw error;
      }
    }
    this.#busy.add(cgroup);
    return cgroup;
  }

  /**
   * Takes a cgroup back: whatever still runs in it is killed (no grace: its script has ended) and
   * it is kept for the next script only once `populated 0`; one that does not empty, or that is
   * given back after {@link CgroupSlots.close}, is removed.
   */
  async release(cgroup: ProcessCgroup): Promise<void> {
    if (!this.#busy.delete(cgroup)) return;
    const empty = await cgroup.terminate({ graceMs: 0 });
    if (!empty || this.#closed || !cgroup.prepareForReuse()) {
      await this.#remove(cgroup);
      return;
    }
    this.#idle.push(cgroup);
  }

  /** Removes the idle cgroups and, as they are given back, those in use; hands out no more. */
  async close(): Promise<void> {
    this.#closed = true;
    open.delete(this);
    const idle = this.#idle.splice(0);
    await Promise.all(idle.map((cgroup) => this.#remove(cgroup)));
  }

  async #remove(cgroup: ProcessCgroup): Promise<void> {
    await cgroup.remove();
    // Forgotten only once gone: one that could not be removed is left for `reap()` to end.
    if (!cgroup.exists()) this.registry?.removeCgroup(cgroup.path);
  }

  #removeIdleSync(): void {
    for (const cgroup of this.#idle.splice(0)) {
      try {
        rmdirSync(cgroup.path);
        this.registry?.removeCgroup(cgroup.path);
      } catch {
        // gone, or not empty: nothing more can be done at exit
      }
    }
  }
}

/**
 * Removes the empty cgroups that Wharf processes now dead left under this process's cgroup
 * (slots idle when a worker was killed). Only empty ones can go (`rmdir` refuses the others):
 * those still holding a killed worker's scripts are the process group registry's to end.
 */
function removeAbandoned(): void {
  const parent = cgroupParentDir();
  if (parent === undefined) return;
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return;
  }
  for (const name of names) {
    const owner = CGROUP_NAME.exec(name)?.[1];
    if (owner === undefined || Number(owner) === process.pid || alive(Number(owner))) continue;
    try {
      rmdirSync(join(parent, name));
    } catch {
      // populated, or removed meanwhile
    }
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
