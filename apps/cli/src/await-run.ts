import { CancelledFailure, WorkflowFailedError } from '@temporalio/client';
import type { SwarmResult } from '@wharf/orchestrator';
import type { Embedded } from '@wharf/orchestrator/embedded';
import type { OutputStore } from '@wharf/output-store';
import { announceGates } from './announce-gates.js';
import { followAnswers } from './answer-events.js';
import { CliError } from './cli-error.js';
import { followRun } from './follow-run.js';
import { type InterruptWatch, stoppedMessage } from './interrupt.js';
import type { CliIo } from './output.js';
import { retryingLines } from './retrying-lines.js';
import { approveCommandFor } from './run-hints.js';

/** Options of {@link awaitRun}. */
export interface AwaitRunOptions {
  watch: InterruptWatch;
  dataDir: string;
  /** The run's Web UI link, when known. */
  link: string | undefined;
  /** Show live progress (`--follow`). */
  follow: boolean;
  /** Print the run's events as JSON lines (`--follow --json`) until it ends. */
  events?: boolean;
  /** Say when a gate of the run waits for approval (`announceGates`): it has gated tasks. */
  gated?: boolean;
  /** The run's store: `--follow` shows running agents' answers as they are written. */
  store?: OutputStore;
  io: CliIo;
}

/**
 * Waits for a run this process gives a worker (`wharf run`, `rerun`, `resume`) to end, following
 * it when asked, and returns its result. Ctrl-C (SIGINT, SIGTERM) ends the wait at once: the
 * watch has said where the run goes on, and this throws the error the command exits with
 * (130, 143) once the caller's `finally` has stopped the worker (the drain).
 *
 * @example
 * ```ts
 * const result = await awaitRun(embedded, workflowId, { watch, dataDir, link, follow: true, io });
 * ```
 */
export async function awaitRun(
  embedded: Pick<Embedded, 'wharf' | 'address' | 'taskQueue' | 'startedServer'>,
  workflowId: string,
  options: AwaitRunOptions,
): Promise<SwarmResult> {
  const { watch, io } = options;
  const run = {
    workflowId,
    address: embedded.address,
    taskQueue: embedded.taskQueue,
    dataDir: options.dataDir,
    link: options.link,
    startedServer: embedded.startedServer,
  };
  watch.setRun(run);
  // The wait for the result is a long poll: cancelled at an interruption, before the
  // connection closes (a poll retried on a closed connection would crash the process).
  const waiting = new AbortController();
  const result = waitThroughOutages(
    () => embedded.wharf.client.withAbortSignal(waiting.signal, () => embedded.wharf.result(workflowId)),
    { io, address: embedded.address, signal: waiting.signal },
  ).catch((error: unknown) => {
    // Cancelled from outside (`wharf cancel`): the run ended as asked, not by a bug of ours.
    if (error instanceof WorkflowFailedError && error.cause instanceof CancelledFailure)
      throw new CliError(
        'SWARM_FAILED',
        `${workflowId} was cancelled (\`wharf cancel\`); what it stored stays (\`wharf outputs list --run ${workflowId}\`)`,
        { cause: error },
      );
    throw error;
  });
  const until = Promise.race([result, watch.interrupted]);
  until.catch(() => {});
  void watch.interrupted.then(() => waiting.abort());
  const approveCommand = approveCommandFor(workflowId, embedded.address);
  // Each gate is announced when it opens, not at the start: one skipped later never is.
  const gates =
    options.gated === true
      ? announceGates(embedded.wharf, workflowId, { until, io, approveCommand })
      : undefined;
  if (options.follow) {
    const retrying = async () =>
      retryingLines(
        (await embedded.wharf.client.workflow.getHandle(workflowId).describe()).raw.pendingActivities ?? [],
      );
    await followRun(
      embedded.wharf,
      workflowId,
      { result, until, io },
      { approveCommand, retrying, ...(options.store === undefined ? {} : { store: options.store }) },
    );
  }
  if (options.events === true) {
    // Every event up to the run's end: the stream ends with the run (or at an interruption).
    // Between them, running agents' answers as they are written (`wharf.answers/v1`), when the store is at hand.
    const answersDone = new AbortController();
    const answers =
      options.store === undefined
        ? undefined
        : followAnswers(embedded.wharf, workflowId, options.store, (event) => io.out(JSON.stringify(event)), {
            signal: answersDone.signal,
          });
    const reading = (async () => {
      for await (const event of embedded.wharf.events(workflowId, { signal: waiting.signal }))
        io.out(JSON.stringify(event));
    })().catch((error: unknown) => {
      io.err(`wharf: the run's events cannot be read (${(error as Error).message}); waiting for its result`);
    });
    await Promise.race([reading, watch.interrupted]);
    answersDone.abort();
    await answers;
  }
  const outcome = await until;
  await gates;
  // Interrupted: the message is out; the caller stops the worker (the drain) in its `finally`.
  if (typeof outcome === 'string') throw watch.error(stoppedMessage(run));
  return outcome;
}

/**
 * Waits for `read`, asking again while the Temporal server does not answer (gRPC UNAVAILABLE or
 * DEADLINE_EXCEEDED: restarting, or its database restarting): a swarm outlives such an outage,
 * and so does the command that waits for it. Each new reason is said once; `signal` ends the wait.
 *
 * @example
 * ```ts
 * const result = await waitThroughOutages(() => wharf.result(workflowId), { io, address, signal });
 * ```
 */
export async function waitThroughOutages<T>(
  read: () => Promise<T>,
  options: { io: CliIo; address: string; signal: AbortSignal; retryMs?: number },
): Promise<T> {
  let said: string | undefined;
  for (;;) {
    try {
      const value = await read();
      if (said !== undefined)
        options.io.err(`wharf: the Temporal server at ${options.address} answers again`);
      return value;
    } catch (error) {
      const reason = unavailableReason(error);
      if (reason === undefined || options.signal.aborted) throw error;
      if (reason !== said)
        options.io.err(
          `wharf: the Temporal server at ${options.address} does not answer (${reason}); waiting`,
        );
      said = reason;
      await new Promise((resolve) => setTimeout(resolve, options.retryMs ?? 2_000));
    }
  }
}

/** The message of a gRPC UNAVAILABLE (14) or DEADLINE_EXCEEDED (4) failure, anywhere in `error`'s causes. */
function unavailableReason(error: unknown): string | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (code === 14 || code === 4) return current.message.replace(/^\d+ [A-Z_]+: /, '');
    current = current.cause;
  }
  return undefined;
}
