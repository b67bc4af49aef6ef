import type proto from '@temporalio/proto';

type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;

/** The marker a local activity leaves in history (Temporal's core SDK). */
const LOCAL_ACTIVITY_MARKER = 'core_local_activity';

/**
 * The Temporal Cloud actions one run's history shows, counted from its events the way Cloud
 * bills them: the run's start (a continue-as-new starts the next run), every activity scheduled
 * and each retry of it (an `ActivityTaskStarted` at attempt n counts n - 1), the local
 * activities of a workflow task as one, timers, signals received and sent, child workflows
 * started, external cancels, updates accepted, search attribute upserts and memo changes.
 * Workflow task completions and heartbeats are not actions; queries and heartbeats leave no
 * event, so they are not counted here either.
 *
 * @example
 * ```ts
 * const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
 * billableActions(history.events ?? []); // 2 for a run that started and ran one activity
 * ```
 */
export function billableActions(events: readonly HistoryEvent[]): number {
  let actions = 0;
  const localActivityTasks = new Set<string>();
  for (const event of events) {
    if (
      event.workflowExecutionStartedEventAttributes ||
      event.activityTaskScheduledEventAttributes ||
      event.timerStartedEventAttributes ||
      event.workflowExecutionSignaledEventAttributes ||
      event.signalExternalWorkflowExecutionInitiatedEventAttributes ||
      event.startChildWorkflowExecutionInitiatedEventAttributes ||
      event.requestCancelExternalWorkflowExecutionInitiatedEventAttributes ||
      event.workflowExecutionUpdateAcceptedEventAttributes ||
      event.upsertWorkflowSearchAttributesEventAttributes ||
      event.workflowPropertiesModifiedEventAttributes
    )
      actions += 1;
    const attempt = event.activityTaskStartedEventAttributes?.attempt ?? 1;
    if (attempt > 1) actions += attempt - 1;
    const marker = event.markerRecordedEventAttributes;
    if (marker?.markerName === LOCAL_ACTIVITY_MARKER)
      localActivityTasks.add(String(marker.workflowTaskCompletedEventId ?? event.eventId));
  }
  return actions + localActivityTasks.size;
}
