import type { Context } from '@temporalio/activity';

/** The server's answers, shared by the activities of one worker (one probe a second at most). */
const lastAnswer = new WeakMap<object, { at: number; probing?: Promise<void> | undefined }>();

/**
 * Aborts the returned signal once the Temporal server has not answered this worker for the
 * activity's heartbeat timeout: by then the server has timed the attempt out and handed its retry
 * to another worker, so a script still running here would run beside it. The worker cannot tell
 * from its heartbeats (they are sent without an answer to the code), so it asks the server
 * (`GetSystemInfo`, through the worker's own connection) every quarter of the timeout. Without a
 * heartbeat timeout or a client in the context, the signal never aborts. `stop()` ends the watch.
 *
 * @example
 * ```ts
 * const reach = watchTemporalReach(Context.current());
 * try {
 *   await captureProcess(command, { signal: AbortSignal.any([context.cancellationSignal, reach.signal]) });
 * } finally {
 *   reach.stop();
 * }
 * ```
 */
export function watchTemporalReach(
  context: Pick<Context, 'info' | 'client'>,
  options: { now?: () => number } = {},
): { signal: AbortSignal; stop: () => void } {
  const lost = new AbortController();
  const timeoutMs = context.info.heartbeatTimeoutMs;
  let client: Context['client'];
  try {
    client = context.client;
  } catch {
    return { signal: lost.signal, stop: () => {} };
  }
  if (timeoutMs === undefined || timeoutMs <= 0) return { signal: lost.signal, stop: () => {} };
  const now = options.now ?? Date.now;
  const started = now();
  const intervalMs = Math.max(250, Math.floor(timeoutMs / 4));
  const probe = async (): Promise<void> => {
    const state = lastAnswer.get(client) ?? { at: 0 };
    lastAnswer.set(client, state);
    if (now() - state.at < 1_000) return;
    state.probing ??= client.connection
      .withDeadline(now() + intervalMs, () => client.workflowService.getSystemInfo({}))
      .then(() => {
        state.at = now();
      })
      .catch(() => undefined)
      .finally(() => {
        state.probing = undefined;
      });
    await state.probing;
  };
  const timer = setInterval(() => {
    void probe().then(() => {
      const answered = Math.max(started, lastAnswer.get(client)?.at ?? 0);
      const silent = now() - answered;
      if (silent >= timeoutMs && !lost.signal.aborted)
        lost.abort(
          new Error(
            `no answer from the Temporal server for ${Math.round(silent / 1000)} s (the heartbeat timeout): the attempt was stopped here, its retry runs on another worker`,
          ),
        );
    });
  }, intervalMs);
  timer.unref?.();
  return { signal: lost.signal, stop: () => clearInterval(timer) };
}
