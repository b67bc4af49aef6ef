import type { SwarmResult } from '@wharf/orchestrator';
import type { Embedded } from '@wharf/orchestrator/embedded';
import { followRun } from './follow-run.js';
import { type InterruptWatch, stoppedMessage } from './interrupt.js';
import type { CliIo } from './output.js';
import { approveCommandFor } from './run-hints.js';

/** Options of {@link awaitRun}. */
export interface AwaitRunOptions {
  watch: InterruptWatch;
  dataDir: string;
  /** The run's Web UI link, when known. */
  link: string | undefined;
  /** Show live progress (`--follow`). */
  follow: boolean;
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
  const result = embedded.wharf.client.withAbortSignal(waiting.signal, () =>
    embedded.wharf.result(workflowId),
  );
  const until = Promise.race([result, watch.interrupted]);
  until.catch(() => {});
  void watch.interrupted.then(() => waiting.abort());
  if (options.follow) {
    const approveCommand = approveCommandFor(workflowId, embedded.address);
    await followRun(embedded.wharf, workflowId, { result, until, io }, { approveCommand });
  }
  const outcome = await until;
  // Interrupted: the message is out; the caller stops the worker (the drain) in its `finally`.
  if (typeof outcome === 'string') throw watch.error(stoppedMessage(run));
  return outcome;
}
