/** One pending activity as `describe()` reports it (`raw.pendingActivities`): only what is read here. */
export interface PendingActivityLike {
  readonly attempt?: number | null;
  readonly activityType?: { readonly name?: string | null } | null;
  readonly lastFailure?: { readonly message?: string | null } | null;
  readonly lastWorkerIdentity?: string | null;
}

/**
 * What `wharf status` says of a swarm's activities that failed and wait for their next attempt:
 * one line per distinct failure, with how many activities it holds back and their highest
 * attempt, so an outage (`data plane unavailable at …`, a worker lost) shows while it lasts
 * instead of a table that merely stops moving. Nothing when no activity is retrying.
 *
 * @example
 * ```ts
 * const pending = (await handle.describe()).raw.pendingActivities ?? [];
 * for (const line of retryingLines(pending)) console.log(line);
 * // 12 activities retrying (attempt 3; runScript): data plane unavailable at postgres://…
 * ```
 */
export function retryingLines(pending: readonly PendingActivityLike[]): string[] {
  const byFailure = new Map<string, { count: number; attempt: number; types: Set<string> }>();
  for (const activity of pending) {
    const message = activity.lastFailure?.message;
    if (message === undefined || message === null || message === '') continue;
    // Bodies' content addresses told apart would give one line per body: one line per failure.
    const reason = (message.split('\n')[0] ?? '')
      .replace(/\b(?:[0-9a-f]{2}\/)?[0-9a-f]{64}\b/g, '…')
      .slice(0, 300);
    const entry = byFailure.get(reason) ?? { count: 0, attempt: 0, types: new Set<string>() };
    entry.count += 1;
    entry.attempt = Math.max(entry.attempt, activity.attempt ?? 0);
    if (activity.activityType?.name) entry.types.add(activity.activityType.name);
    byFailure.set(reason, entry);
  }
  return [...byFailure].map(([reason, { count, attempt, types }]) => {
    const what = count === 1 ? '1 activity' : `${count} activities`;
    return `${what} retrying (attempt ${attempt}; ${[...types].sort().join(', ')}): ${reason}`;
  });
}
