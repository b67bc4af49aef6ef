import { readFile } from 'node:fs/promises';

/** What the scripts of a fan-out appended to their log: one line per run of a script. */
export interface ItemLog {
  /** Script runs (lines). */
  runs: number;
  /** Distinct items among them. */
  items: number;
  /** Runs beyond the first of each item: the items redone. */
  redone: number;
}

/**
 * Reads a log each script appends its item's id to (`echo "$WHARF_INSTANCE" >> log`); a missing
 * log is empty.
 *
 * @example
 * ```ts
 * const { redone } = await readItemLog('/tmp/run/items.log'); // 0 when no item ran twice
 * ```
 */
export async function readItemLog(path: string): Promise<ItemLog> {
  let text = '';
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const lines = text.split('\n').filter((line) => line !== '');
  const items = new Set(lines).size;
  return { runs: lines.length, items, redone: lines.length - items };
}

/**
 * Resolves once the log holds at least `runs` lines, checking every `intervalMs`.
 *
 * @example
 * ```ts
 * await untilLogged('/tmp/run/items.log', 5_000); // then SIGKILL the worker
 * ```
 */
export async function untilLogged(path: string, runs: number, intervalMs = 20): Promise<void> {
  for (;;) {
    if ((await readItemLog(path)).runs >= runs) return;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** The shell script both sides run per item: it logs its item, then prints it. */
export function itemScript(logPath: string): string {
  return `echo "$WHARF_INSTANCE" >> '${logPath}'; echo "$WHARF_INSTANCE"`;
}

/**
 * The environment both sides run an item's script in: a `PATH` and a `HOME` (this process's, or
 * defaults), and the item's index as `WHARF_INSTANCE`, as Wharf gives it to a map's instance.
 *
 * @example
 * ```ts
 * await captureProcess('bash', { args: ['-c', itemScript(log)], env: itemEnvironment(7), spawner });
 * ```
 */
export function itemEnvironment(instance: number): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/tmp',
    WHARF_INSTANCE: String(instance),
  };
}
