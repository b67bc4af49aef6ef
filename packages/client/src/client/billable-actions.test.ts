import type proto from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { billableActions } from './billable-actions.js';

/** Events as a decoded history has them (its 64-bit ids as plain numbers here). */
const events = (list: object[]) => list as proto.temporal.api.history.v1.IHistoryEvent[];

describe('billableActions', () => {
  it('counts the start, activities and their retries, timers, signals and children; not workflow tasks', () => {
    expect(
      billableActions(
        events([
          { eventId: 1, workflowExecutionStartedEventAttributes: {} },
          { eventId: 2, workflowTaskScheduledEventAttributes: {} },
          { eventId: 4, workflowTaskCompletedEventAttributes: {} },
          { eventId: 5, activityTaskScheduledEventAttributes: {} },
          { eventId: 6, activityTaskStartedEventAttributes: { attempt: 3 } },
          { eventId: 7, timerStartedEventAttributes: {} },
          { eventId: 8, workflowExecutionSignaledEventAttributes: {} },
          { eventId: 9, startChildWorkflowExecutionInitiatedEventAttributes: {} },
          { eventId: 10, upsertWorkflowSearchAttributesEventAttributes: {} },
        ]),
      ),
    ).toBe(8);
  });

  it('counts the local activities of one workflow task as one action', () => {
    const marker = (eventId: number, task: number) => ({
      eventId,
      markerRecordedEventAttributes: {
        markerName: 'core_local_activity',
        workflowTaskCompletedEventId: task,
      },
    });
    expect(billableActions(events([marker(5, 4), marker(6, 4), marker(9, 8), { eventId: 10 }]))).toBe(2);
  });
});
