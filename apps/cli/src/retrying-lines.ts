/** One pending activity as `describe()` reports it (`raw.pendingActivities`): only what is read here. */
export interface PendingActivityLike {
  readonly attempt?: number | null;
  readonly activityType?: { readonly name?: string | null } | null;
  readonly lastFailure?: { readonly message?: string | null } | null;
  readonly lastWorkerIdentity?: string | null;
  /** `PENDING_ACTIVITY_STATE_*`: 1 (or `'PENDING_ACTIVITY_STATE_SCHEDULED'`) waits for its next attempt. */
  readonly state?: number | string | null;
}

/** Temporal's own words for an attempt that timed out, by the timeout's kind. */
const timedOut = /^activity (Heartbeat|StartToClose|ScheduleToStart) timeout$/i;

/**
 * A failure in words a user acts on. Temporal says `activity Heartbeat timeout` when the
 * worker running an attempt went silent: it died, or it is cut off from Temporal (its own
 * heartbeats fail, so Wharf stops the attempt's scripts there) while another worker retries it.
 */
function explain(reason: string): string {
  const kind = timedOut.exec(reason)?.[1]?.toLowerCase();
  if (kind === 'heartbeat')
    return 'no heartbeat from the worker running it in time: that worker died or lost touch with Temporal (its scripts there are stopped); retried on a worker that answers';
  if (kind === 'starttoclose') return 'an attempt ran past its time limit';
  if (kind === 'scheduletostart') return 'no worker took it in time';
  return reason;
}

function waitsForRetry(state: PendingActivityLike['state']): boolean {
  return state === 1 || state === 'PENDING_ACTIVITY_STATE_SCHEDULED';
}

/**
 * What `wharf status` says of a swarm's activities that failed and wait for their next attempt:
 * one line per distinct failure, with how many activities it holds back and their highest
 * attempt, so an outage (`data plane unavailable at …`, a worker lost) shows while it lasts
 * instead of a table that merely stops moving. A timeout is said in words, and the workers the
 * waiting attempts last ran on are named (`last on 4021@host-b`): a worker that lost touch
 * with Temporal is found by name. Nothing when no activity is retrying.
 *
 * @example
 * ```ts
 * const pending = (await handle.describe()).raw.pendingActivities ?? [];
 * for (const line of retryingLines(pending)) console.log(line);
 * // 12 activities retrying (attempt 3; runScript): data plane unavailable at postgres://…
 * ```
 */
export function retryingLines(pending: readonly PendingActivityLike[]): string[] {
  const byFailure = new Map<
    string,
    { count: number; attempt: number; types: Set<string>; workers: Set<string> }
  >();
  for (const activity of pending) {
    const message = activity.lastFailure?.message;
    if (message === undefined || message === null || message === '') continue;
    // Bodies' content addresses told apart would give one line per body: one line per failure.
    const reason = explain(
      (message.split('\n')[0] ?? '').replace(/\b(?:[0-9a-f]{2}\/)?[0-9a-f]{64}\b/g, '…').slice(0, 300),
    );
    const entry = byFailure.get(reason) ?? {
      count: 0,
      attempt: 0,
      types: new Set<string>(),
      workers: new Set<string>(),
    };
    // Once started again, an attempt's worker is the one retrying it, not the one that failed.
    if (
      timedOut.test(message.split('\n')[0] ?? '') &&
      waitsForRetry(activity.state) &&
      activity.lastWorkerIdentity
    )
      entry.workers.add(activity.lastWorkerIdentity);
    entry.count += 1;
    entry.attempt = Math.max(entry.attempt, activity.attempt ?? 0);
    if (activity.activityType?.name) entry.types.add(activity.activityType.name);
    byFailure.set(reason, entry);
  }
  return [...byFailure].map(([reason, { count, attempt, types, workers }]) => {
    const what = count === 1 ? '1 activity' : `${count} activities`;
    const named = [...workers].sort();
    const where =
      named.length === 0
        ? ''
        : ` (last on ${named.slice(0, 3).join(', ')}${named.length > 3 ? ` and ${named.length - 3} more` : ''})`;
    return `${what} retrying (attempt ${attempt}; ${[...types].sort().join(', ')}): ${reason}${where}`;
  });
}
