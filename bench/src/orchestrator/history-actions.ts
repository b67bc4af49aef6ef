import proto from '@temporalio/proto';
import { billableActions } from '@wharf/orchestrator/client';

const EventType = proto.temporal.api.enums.v1.EventType;
type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;

/** What {@link historyActions} counts in the histories of a run chain. */
export interface HistoryActions {
  /** Billable actions, as Temporal Cloud counts them from these events (see {@link historyActions}). */
  actions: number;
  /** Activities scheduled (each a billed action, its retries too). */
  activities: number;
  /**
   * Milliseconds from each activity's `ActivityTaskScheduled` to its `ActivityTaskStarted`
   * (the last attempt's start), sorted ascending.
   */
  schedulingLatenciesMs: number[];
}

/**
 * Counts what Temporal Cloud bills as actions in the events of one or more runs (with
 * `billableActions`, the one counter Wharf has), the activities scheduled, and every activity's
 * scheduling latency (`ActivityTaskScheduled` → the last attempt's `ActivityTaskStarted`).
 *
 * @example
 * ```ts
 * const { actions, schedulingLatenciesMs } = historyActions([history.events ?? []]);
 * console.log(actions / instances, percentile(schedulingLatenciesMs, 0.99));
 * ```
 */
export function historyActions(runs: readonly (readonly HistoryEvent[])[]): HistoryActions {
  let actions = 0;
  let activities = 0;
  const latencies: number[] = [];
  for (const events of runs) {
    actions += billableActions(events);
    const scheduledAt = new Map<string, number>();
    for (const event of events) {
      if (event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED) {
        activities++;
        scheduledAt.set(String(event.eventId), millisOf(event));
      } else if (event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED) {
        const scheduled = scheduledAt.get(String(event.activityTaskStartedEventAttributes?.scheduledEventId));
        if (scheduled !== undefined) latencies.push(millisOf(event) - scheduled);
      }
    }
  }
  return { actions, activities, schedulingLatenciesMs: latencies.sort((a, b) => a - b) };
}

/**
 * The value at fraction `p` (0–1) of an ascending list, nearest rank; NaN for an empty list.
 *
 * @example
 * ```ts
 * percentile([1, 2, 3, 4], 0.5); // 2
 * ```
 */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(p * sorted.length)));
  return sorted[rank - 1] as number;
}

/** An event's time in milliseconds since the epoch. */
function millisOf(event: HistoryEvent): number {
  const time = event.eventTime;
  if (time === null || time === undefined) return 0;
  return toNumber(time.seconds) * 1000 + Math.floor((time.nanos ?? 0) / 1e6);
}

/** A protobuf int64 (a `Long` as decoded, or a number) as a number. */
function toNumber(value: unknown): number {
  if (typeof value === 'number') return value;
  if (value !== null && typeof value === 'object' && 'toNumber' in value)
    return (value as { toNumber(): number }).toNumber();
  return Number(value ?? 0);
}
