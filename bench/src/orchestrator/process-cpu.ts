import { readdir, readFile } from 'node:fs/promises';

/** Clock ticks per second of `/proc/<pid>/stat`'s times (`getconf CLK_TCK`: 100 on Linux). */
const TICKS_PER_SECOND = 100;

interface ProcStat {
  pid: number;
  ppid: number;
  /** utime + stime + cutime + cstime, in ticks: its own CPU and its reaped children's. */
  ticks: number;
}

async function readStat(pid: string): Promise<ProcStat | undefined> {
  try {
    const text = await readFile(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: fields after its `)`.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    const number = (index: number) => Number(fields[index - 3]);
    return { pid: Number(pid), ppid: number(4), ticks: number(14) + number(15) + number(16) + number(17) };
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds a process and every live descendant have used so far (user + system, with the
 * children each has reaped): a server that forks (PostgreSQL's backends) or is started through a
 * wrapper (the `temporal` CLI's launcher) is measured whole. Read it before and after a piece of
 * work: the difference is the work's CPU. Linux only (`/proc`).
 *
 * @example
 * ```ts
 * const before = await treeCpuSeconds(server.pid);
 * await runSwarm();
 * console.log(`${(await treeCpuSeconds(server.pid)) - before} s of server CPU`);
 * ```
 */
export async function treeCpuSeconds(root: number): Promise<number> {
  const stats = (
    await Promise.all((await readdir('/proc')).filter((name) => /^\d+$/.test(name)).map(readStat))
  ).filter((stat) => stat !== undefined);
  const children = new Map<number, ProcStat[]>();
  for (const stat of stats) children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), stat]);
  let ticks = 0;
  const queue = stats.filter((stat) => stat.pid === root);
  for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
    ticks += next.ticks;
    queue.push(...(children.get(next.pid) ?? []));
  }
  return ticks / TICKS_PER_SECOND;
}

/**
 * CPU seconds the whole machine has been busy so far, every core summed (`/proc/stat`: user,
 * nice, system, irq, softirq and steal; idle and iowait left out). Read it before and after a
 * piece of work: the difference is what everything running meanwhile cost, the work's own
 * processes and whatever else shared the machine. Linux only.
 *
 * @example
 * ```ts
 * const before = await machineCpuSeconds();
 * await runSwarm();
 * console.log(`${(1000 * ((await machineCpuSeconds()) - before)) / items} ms of CPU an item`);
 * ```
 */
export async function machineCpuSeconds(): Promise<number> {
  const line = (await readFile('/proc/stat', 'utf8')).split('\n', 1)[0] ?? '';
  const [label, user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/);
  if (label !== 'cpu') throw new Error(`/proc/stat does not start with the cpu line: ${line}`);
  const busy = [user, nice, system, irq, softirq, steal].reduce((sum, field) => sum + Number(field ?? 0), 0);
  return busy / TICKS_PER_SECOND;
}

/**
 * CPU seconds the kernel's own threads have used so far (`kthreadd`, pid 2, and its children:
 * the workqueues' `kworker`s, `jbd2`, `ksoftirqd`): work a process causes that is not billed to
 * it, such as tearing down a namespace or a cgroup after it, or committing a file system journal.
 *
 * @example
 * ```ts
 * const before = await kernelThreadsCpuSeconds();
 * await runSwarm();
 * console.log(`${(await kernelThreadsCpuSeconds()) - before} s in kernel threads`);
 * ```
 */
export function kernelThreadsCpuSeconds(): Promise<number> {
  return treeCpuSeconds(2);
}

/**
 * What each figure of a reading grew by between two readings of the same figures (CPU seconds
 * read before and after a piece of work): `end - start`, figure by figure.
 *
 * @example
 * ```ts
 * const read = async () => ({ machine: await machineCpuSeconds(), server: await treeCpuSeconds(pid) });
 * const start = await read();
 * await runSwarm();
 * const { machine, server } = cpuSpent(start, await read());
 * ```
 */
export function cpuSpent<T extends Record<string, number>>(start: T, end: T): T {
  return Object.fromEntries(Object.entries(end).map(([key, value]) => [key, value - (start[key] ?? 0)])) as T;
}

/**
 * What a server's processes used between two readings (CPU seconds by process name, as
 * `PeersServer.serverCpuSeconds` reads them): each by name, and their sum.
 *
 * @example
 * ```ts
 * serverCpuSpent({ 'Temporal server': 10, PostgreSQL: 4 }, { 'Temporal server': 12, PostgreSQL: 7 });
 * // { server: 5, serverParts: { 'Temporal server': 2, PostgreSQL: 3 } }
 * ```
 */
export function serverCpuSpent(
  start: Record<string, number>,
  end: Record<string, number>,
): { server: number; serverParts: Record<string, number> } {
  const serverParts = cpuSpent(start, end);
  return { server: Object.values(serverParts).reduce((sum, value) => sum + value, 0), serverParts };
}
