import { spawn } from 'node:child_process';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { itemScript, readItemLog, untilLogged } from './item-log.js';
import type { LangGraphSaver } from './langgraph-fan-out.js';
import { filesBytes } from './wharf-fan-out.js';

/** What {@link runLangGraphSide} runs. */
export interface LangGraphSideOptions {
  items: number;
  /** Nodes run at once (`maxConcurrency`). */
  concurrency: number;
  /** A directory of this run's own: the SQLite saver's file, the item log. */
  dir: string;
  /**
   * Checkpoint into this PostgreSQL database instead of a SQLite file (`PostgresSaver`), on a
   * thread named for `dir`; `bytes` reads what the database holds, before and after the run.
   */
  postgres?: { url: string; bytes: () => Promise<number> };
  /** SIGKILL the process once half the items have run, then resume the thread in a new one. */
  killAtHalf: boolean;
}

/** What one LangGraph.js fan-out left. */
export interface LangGraphSideFigures {
  /**
   * Without a kill: from the graph's start to its end, in its process. With one: from the first
   * process's start to the end of the resume.
   */
  seconds: number;
  /** The peak RSS of the process that finished the run (`maxRSS`). */
  peakRss: number;
  /** Distinct outputs in the final state: the items in the result. */
  itemsInResult: number;
  /** Outputs in the final state beyond the distinct ones (an item's writes taken twice). */
  duplicateOutputs: number;
  runsBeforeKill: number;
  redone: number;
  /** The SQLite saver's file and write-ahead log after the run (PostgreSQL: what the database grew by). */
  checkpointBytes: number;
  /** Which saver checkpointed the thread: `SqliteSaver (WAL) in a file`, `PostgresSaver`. */
  saver: string;
  /**
   * CPU seconds from the graph's start to its end: the whole machine's, and the LangGraph.js
   * process tree's (the process, its spawn server, the scripts). Undefined with a kill.
   */
  cpu?: { machine: number; tree: number };
}

/** What the child prints. */
interface ChildResult {
  outputs: number;
  distinctOutputs: number;
  seconds: number;
  peakRss: number;
  cpuSeconds: { machine: number; tree: number };
}

const CHILD = fileURLToPath(new URL('./langgraph-child.js', import.meta.url));

/**
 * The headline fan-out through LangGraph.js in a process of its own (`langgraph-child.js`): a
 * `Send` per item to a node that runs the same script as the Wharf side through a `SpawnServer`,
 * checkpointed by `@langchain/langgraph-checkpoint-sqlite` into a file (or, with `postgres`,
 * by `@langchain/langgraph-checkpoint-postgres` into that database). With `killAtHalf` the
 * process is SIGKILLed once half the scripts have run, and a new one resumes the thread (same
 * thread id, `invoke(null)`). Counts the items redone and those in the final state.
 *
 * @example
 * ```ts
 * const figures = await runLangGraphSide({ items: 1000, concurrency: 32, dir, killAtHalf: true });
 * figures.redone; // at most the nodes in flight at the kill
 * ```
 */
export async function runLangGraphSide(options: LangGraphSideOptions): Promise<LangGraphSideFigures> {
  const log = join(options.dir, 'items.log');
  const checkpointPath = join(options.dir, 'checkpoints.db');
  const saver: LangGraphSaver =
    options.postgres === undefined
      ? { kind: 'sqlite', path: checkpointPath }
      : { kind: 'postgres', url: options.postgres.url };
  const bytes = options.postgres?.bytes ?? (() => filesBytes(checkpointPath));
  const bytesBefore = options.postgres === undefined ? 0 : await bytes();
  const childOptions = {
    items: options.items,
    script: itemScript(log),
    shell: 'bash',
    saver,
    // One thread per run: runs sharing a database do not resume each other.
    threadId: `fan-out-${basename(options.dir)}`,
    concurrency: options.concurrency,
  };
  const started = performance.now();
  let runsBeforeKill = 0;
  let result: ChildResult;
  if (options.killAtHalf) {
    const first = startChild({ ...childOptions, resume: false });
    await Promise.race([
      untilLogged(log, Math.ceil(options.items / 2)),
      first.result.then(() => {
        throw new Error('the LangGraph.js run ended before half its items had run');
      }),
    ]);
    first.kill();
    await first.result.catch(() => undefined);
    runsBeforeKill = (await readItemLog(log)).runs;
    result = await startChild({ ...childOptions, resume: true }).result;
  } else {
    result = await startChild({ ...childOptions, resume: false }).result;
  }
  // A run without a kill is timed in its process, from the graph's start (the process already up
  // and its modules loaded, as the Wharf side's worker is); a killed one from the first start to
  // the end of the resume.
  const seconds = options.killAtHalf ? (performance.now() - started) / 1000 : result.seconds;
  return {
    seconds,
    peakRss: result.peakRss,
    itemsInResult: result.distinctOutputs,
    duplicateOutputs: result.outputs - result.distinctOutputs,
    runsBeforeKill,
    redone: (await readItemLog(log)).redone,
    checkpointBytes: (await bytes()) - bytesBefore,
    saver: saver.kind === 'sqlite' ? 'SqliteSaver (WAL) in a file' : 'PostgresSaver',
    ...(options.killAtHalf ? {} : { cpu: result.cpuSeconds }),
  };
}

/** Starts `langgraph-child.js`; its printed result, and a SIGKILL. */
function startChild(options: object): { result: Promise<ChildResult>; kill: () => void } {
  const child = spawn(process.execPath, [CHILD, JSON.stringify(options)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => {
    stdout += text;
  });
  child.stderr.setEncoding('utf8').on('data', (text: string) => {
    if (stderr.length < 4_000) stderr += text;
  });
  const result = new Promise<ChildResult>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (code === 0) resolve(JSON.parse(stdout.trim()) as ChildResult);
      else reject(new Error(`the LangGraph.js process ended (${code ?? signal}): ${stderr.slice(0, 2_000)}`));
    });
  });
  return { result, kill: () => child.kill('SIGKILL') };
}
