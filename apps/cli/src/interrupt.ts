import { join } from 'node:path';
import { ProcessGroupRegistry } from '@wharf/orchestrator/worker';
import { CliError, exitCodes } from './cli-error.js';
import type { CliIo } from './output.js';
import { addressFlag, resumeCommand } from './run-hints.js';

/** How long `wharf run`'s worker lets running steps finish after Ctrl-C. */
export const RUN_DRAIN_MS = 10_000;
/** After the drain: cancelled scripts' kill grace, closing the stores, stopping a dev server. */
export const RUN_EXIT_MARGIN_MS = 5_000;
/** The error code of a command each signal ended (exit 130, 143). */
const signalErrors = { SIGINT: 'INTERRUPTED', SIGTERM: 'TERMINATED' } as const;

/** The signals {@link InterruptWatch} handles. */
export type InterruptSignal = keyof typeof signalErrors;

/** A swarm `wharf run` started, as the interruption messages name it. */
export interface InterruptedRun {
  workflowId: string;
  /** The Temporal server's address. */
  address: string;
  /** The task queue the swarm's steps wait on for a worker. */
  taskQueue: string;
  dataDir: string;
  /** The run's Web UI link, when known. */
  link: string | undefined;
  /** True when `wharf run` started the dev server: it stops with the command. */
  startedServer: boolean;
}

/**
 * What `wharf run` says at the first Ctrl-C: where the swarm goes on, how to see it, how to give
 * it a worker again, and how long the command drains. Every word of it is here, so that it can
 * be changed in one place.
 *
 * @example
 * ```ts
 * for (const line of interruptMessage(run, { drainMs: 10_000, exitMs: 15_000 })) io.err(line);
 * interruptMessage(run, { drainMs: 10_000, exitMs: 15_000, signal: 'SIGTERM' }); // no Ctrl-C hint
 * ```
 */
export function interruptMessage(
  run: InterruptedRun | undefined,
  timing: { drainMs: number; exitMs: number; signal?: InterruptSignal | undefined },
): string[] {
  const seconds = (ms: number) => `${Math.round(ms / 1000)} s`;
  // Ctrl-C is a hint for a person at the terminal; SIGTERM comes from a supervisor, which signals again.
  const again = timing.signal === 'SIGTERM' ? 'a second signal exits now' : 'Ctrl-C again to exit now';
  const drain = `wharf: stopping the worker: steps in flight get up to ${seconds(timing.drainMs)} to finish, then go back to the server to be retried; out within ${seconds(timing.exitMs)} (${again})`;
  if (run === undefined) return ['wharf: interrupted while starting; stopping.'];
  const { workflowId } = run;
  const ui = run.link === undefined ? '' : ` · Web UI: ${run.link}`;
  if (run.startedServer) {
    return [
      `wharf: interrupted. The swarm ${workflowId} is kept by the Temporal dev server this command started, which stops with it (its state stays in ${join(run.dataDir, 'temporal.db')}).`,
      `wharf:   to go on: ${resumeCommand(workflowId, run)}   starts that server again with a worker for the swarm; it resumes where it stopped`,
      `wharf:   to see it: wharf status ${workflowId}   (while wharf resume or wharf dev runs, at the address it prints)`,
      drain,
    ];
  }
  return [
    `wharf: interrupted. The swarm keeps running on the Temporal server as ${workflowId}; only this command's worker stops.`,
    `wharf:   to see it: wharf status ${workflowId}${addressFlag(run.address)}${ui}`,
    `wharf:   to go on: ${resumeCommand(workflowId, run)}   gives it a worker again on its task queue ${run.taskQueue}; it resumes where it stopped`,
    drain,
  ];
}

/**
 * The one line `wharf run` prints when it exits at once (a second Ctrl-C, or the drain overran).
 *
 * @example
 * ```ts
 * io.err(exitNowMessage(run));
 * ```
 */
export function exitNowMessage(run: InterruptedRun | undefined): string {
  if (run === undefined) return 'wharf: exiting now.';
  if (run.startedServer) {
    return `wharf: exiting now; ${run.workflowId} is kept in ${join(run.dataDir, 'temporal.db')} (${resumeCommand(run.workflowId, run)} goes on with it).`;
  }
  return `wharf: exiting now; ${run.workflowId} keeps running on the server (wharf status ${run.workflowId}${addressFlag(run.address)}).`;
}

/**
 * The last word of a `wharf run` that stopped after its drain (the error it exits with).
 *
 * @example
 * ```ts
 * throw watch.error(stoppedMessage(run));
 * ```
 */
export function stoppedMessage(run: InterruptedRun): string {
  return run.startedServer
    ? `stopped; ${run.workflowId} waits in ${join(run.dataDir, 'temporal.db')} for ${resumeCommand(run.workflowId, run)}`
    : `stopped; ${run.workflowId} keeps running on the server, waiting for a worker`;
}

/**
 * Ends the scripts this process still runs (their process groups are recorded under the data
 * directory's `process-groups/`), at once: a command that exits must not leave them orphaned;
 * the server retries their steps when a worker polls again. Returns within about a second.
 *
 * @example
 * ```ts
 * await endOwnScripts(embedded.data.root);
 * ```
 */
export async function endOwnScripts(dataRoot: string): Promise<void> {
  const registry = new ProcessGroupRegistry(join(dataRoot, 'process-groups'));
  await Promise.race([
    registry.reap({ graceMs: 0 }).catch(() => []),
    new Promise((resolve) => setTimeout(resolve, 1_000).unref()),
  ]);
}

/** Options of {@link InterruptWatch}. */
export interface InterruptWatchOptions {
  io: CliIo;
  drainMs: number;
  /** From the first signal to the latest exit, drain included. */
  exitMs: number;
}

/**
 * Ctrl-C (SIGINT) and SIGTERM for one `wharf run`: the first signal prints at once what becomes
 * of the swarm ({@link interruptMessage}) and resolves {@link InterruptWatch.interrupted}, so the
 * command stops its worker within the drain time it named; a second signal, or a drain that
 * overruns, prints {@link exitNowMessage}, ends this process's scripts and exits with 130 (143
 * for SIGTERM). Listening starts when it is made; `dispose()` stops it.
 *
 * @example
 * ```ts
 * const watch = new InterruptWatch({ io, drainMs: 10_000, exitMs: 15_000 });
 * const outcome = await Promise.race([result, watch.interrupted]);
 * ```
 */
export class InterruptWatch {
  /** Resolves with the first signal. */
  readonly interrupted: Promise<InterruptSignal>;
  #signal: InterruptSignal | undefined;
  #run: InterruptedRun | undefined;
  #dataRoot: string | undefined;
  #deadline: NodeJS.Timeout | undefined;
  #resolve: (signal: InterruptSignal) => void = () => {};
  readonly #options: InterruptWatchOptions;
  readonly #listeners: [InterruptSignal, () => void][];

  constructor(options: InterruptWatchOptions) {
    this.#options = options;
    this.interrupted = new Promise((resolve) => {
      this.#resolve = resolve;
    });
    this.#listeners = (Object.keys(signalErrors) as InterruptSignal[]).map((signal) => [
      signal,
      () => this.#onSignal(signal),
    ]);
    for (const [signal, listener] of this.#listeners) process.on(signal, listener);
  }

  /** The first signal received, if any. */
  get signal(): InterruptSignal | undefined {
    return this.#signal;
  }

  /** The error a command stopped by the signal received ends with (exit 130, or 143 for SIGTERM). */
  error(message: string): CliError {
    return new CliError(signalErrors[this.#signal ?? 'SIGINT'], message);
  }

  /** Where this process records its scripts' process groups (the data directory). */
  setDataRoot(root: string): void {
    this.#dataRoot = root;
  }

  /**
   * Names the swarm once it started. When a signal came while it was being started, the
   * message is printed now.
   */
  setRun(run: InterruptedRun): void {
    this.#run = run;
    if (this.#signal !== undefined) this.#printMessage();
  }

  /**
   * Stops listening. After an interruption the exit deadline stays armed, unreferenced: it
   * only fires if something else keeps the process from exiting.
   */
  dispose(): void {
    for (const [signal, listener] of this.#listeners) process.off(signal, listener);
    this.#deadline?.unref();
  }

  #onSignal(signal: InterruptSignal): void {
    if (this.#signal !== undefined) {
      void this.#exitNow();
      return;
    }
    this.#signal = signal;
    this.#printMessage();
    this.#deadline = setTimeout(() => void this.#exitNow(), this.#options.exitMs);
    this.#resolve(signal);
  }

  #printMessage(): void {
    const timing = { drainMs: this.#options.drainMs, exitMs: this.#options.exitMs, signal: this.#signal };
    for (const line of interruptMessage(this.#run, timing)) this.#options.io.err(line);
  }

  async #exitNow(): Promise<never> {
    this.#options.io.err(exitNowMessage(this.#run));
    if (this.#dataRoot !== undefined) await endOwnScripts(this.#dataRoot);
    process.exit(exitCodes[signalErrors[this.#signal ?? 'SIGINT']]);
  }
}
