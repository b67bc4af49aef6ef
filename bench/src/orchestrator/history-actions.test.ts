import proto from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { historyActions, percentile } from './history-actions.js';

const EventType = proto.temporal.api.enums.v1.EventType;
type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;

type Int64 = NonNullable<HistoryEvent['eventId']>;

/** An int64 as the decoded history holds it (a `Long`: it converts with `toNumber` and `toString`). */
const int64 = (value: number): Int64 =>
  ({
    low: value,
    high: 0,
    unsigned: false,
    toNumber: () => value,
    toString: () => String(value),
  }) as unknown as Int64;

/** The attributes field each event type of these tests carries, as a decoded history has it. */
const attributesOf: Record<number, keyof HistoryEvent> = {
  [EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED]: 'workflowExecutionStartedEventAttributes',
  [EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED]: 'activityTaskScheduledEventAttributes',
  [EventType.EVENT_TYPE_TIMER_STARTED]: 'timerStartedEventAttributes',
  [EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED]: 'workflowExecutionSignaledEventAttributes',
};

/** An event at `ms` milliseconds past the epoch. */
function event(
  eventId: number,
  eventType: number,
  ms: number,
  more: Partial<HistoryEvent> = {},
): HistoryEvent {
  return {
    eventId: int64(eventId),
    eventType,
    eventTime: { seconds: int64(Math.floor(ms / 1000)), nanos: (ms % 1000) * 1e6 },
    ...(attributesOf[eventType] === undefined ? {} : { [attributesOf[eventType]]: {} }),
    ...more,
  };
}

describe('historyActions', () => {
  it('bills a start, each activity and its retries, timers, signals and markers once per workflow task', () => {
    const run: HistoryEvent[] = [
      event(1, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED, 0),
      event(4, EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED, 10),
      event(5, EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED, 1_000),
      event(6, EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED, 1_000),
      event(7, EventType.EVENT_TYPE_MARKER_RECORDED, 1_000, {
        markerRecordedEventAttributes: {
          markerName: 'core_local_activity',
          workflowTaskCompletedEventId: int64(4),
        },
      }),
      event(8, EventType.EVENT_TYPE_MARKER_RECORDED, 1_000, {
        markerRecordedEventAttributes: {
          markerName: 'core_local_activity',
          workflowTaskCompletedEventId: int64(4),
        },
      }),
      event(9, EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED, 1_004, {
        activityTaskStartedEventAttributes: { scheduledEventId: int64(5), attempt: 1 },
      }),
      event(10, EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED, 1_250, {
        activityTaskStartedEventAttributes: { scheduledEventId: int64(6), attempt: 3 },
      }),
      event(11, EventType.EVENT_TYPE_TIMER_STARTED, 1_300),
      event(12, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED, 1_300),
      event(13, EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED, 1_400),
    ];
    const next: HistoryEvent[] = [event(1, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED, 2_000)];
    const counted = historyActions([run, next]);
    // 2 starts + 2 activities + 2 retries + 1 timer + 1 signal + 1 workflow task with markers.
    expect(counted.actions).toBe(9);
    expect(counted.activities).toBe(2);
    expect(counted.schedulingLatenciesMs).toEqual([4, 250]);
  });

  it('matches a start to its own run: event ids repeat across runs', () => {
    const first = [
      event(5, EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED, 0),
      event(6, EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED, 7, {
        activityTaskStartedEventAttributes: { scheduledEventId: int64(5), attempt: 1 },
      }),
    ];
    const second = [
      event(5, EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED, 100),
      event(6, EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED, 102, {
        activityTaskStartedEventAttributes: { scheduledEventId: int64(5), attempt: 1 },
      }),
    ];
    expect(historyActions([first, second]).schedulingLatenciesMs).toEqual([2, 7]);
  });
});

describe('percentile', () => {
  it('takes the nearest rank', () => {
    expect(percentile([1, 2, 3, 4], 0.5)).toBe(2);
    expect(percentile([1, 2, 3, 4], 0.99)).toBe(4);
    expect(percentile([5], 0)).toBe(5);
    expect(percentile([], 0.5)).toBeNaN();
  });
});
