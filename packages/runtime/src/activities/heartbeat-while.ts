import type { Context } from '@temporalio/activity';

/**
 * Awaits `work` while heartbeating every third of the activity's heartbeat timeout (every
 * 5 s when it has none), so one slow model call never looks like a dead worker. The timer is
 * cleared however `work` ends.
 *
 * @example
 * ```ts
 * const result = await heartbeatWhile(Context.current(), () => generateText({ model, prompt }), { task });
 * ```
 */
export async function heartbeatWhile<TResult>(
  context: Context,
  work: () => Promise<TResult>,
  details?: unknown,
): Promise<TResult> {
  const timeoutMs = context.info.heartbeatTimeoutMs;
  const intervalMs =
    timeoutMs === undefined || timeoutMs <= 0 ? 5_000 : Math.max(100, Math.floor(timeoutMs / 3));
  const timer = setInterval(() => context.heartbeat(details), intervalMs);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}
