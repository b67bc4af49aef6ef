import proto from '@temporalio/proto';
import type { WharfClient } from '@wharf/orchestrator/client';
import { CliError } from './cli-error.js';

const { TaskQueueKind, TaskQueueType } = proto.temporal.api.enums.v1;

/**
 * How recently a worker must have polled to count as serving a queue. An idle worker's long
 * poll lasts about a minute, so its last access can be that old while it still serves.
 */
export const WORKER_SEEN_WITHIN_MS = 2 * 60_000;

/**
 * Refuses (`NO_WORKER`, exit 5) when no worker has polled the running swarm's workflow task queue
 * within {@link WORKER_SEEN_WITHIN_MS}: `approve` and `input` are Temporal Updates, which a
 * worker must run, so without one they would wait until one came. The message names the queue
 * and says how to give the run a worker. A swarm that already ended, or a run or queue the server
 * will not describe, is left to the Update to report.
 *
 * @example
 * ```ts
 * await requireWorker(wharf, workflowId, 'approve');
 * await wharf.approveTask(workflowId, task, answer);
 * ```
 */
export async function requireWorker(
  wharf: WharfClient,
  workflowId: string,
  command: string,
  now: number = Date.now(),
): Promise<void> {
  const description = await wharf.client.workflow
    .getHandle(workflowId)
    .describe()
    .catch(() => undefined);
  if (description === undefined || description.status.name !== 'RUNNING') return;
  const taskQueue = description.taskQueue;
  // A server that will not describe the queue (a key without the permission) is not asked again:
  // the Update is sent as before.
  const queue = await wharf.client.workflowService
    .describeTaskQueue({
      namespace: wharf.client.options.namespace,
      taskQueue: { name: taskQueue, kind: TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
      taskQueueType: TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
    })
    .catch(() => undefined);
  if (queue === undefined) return;
  const seen = (queue.pollers ?? []).some((poller) => {
    const seconds = Number(poller.lastAccessTime?.seconds ?? 0);
    return now - seconds * 1000 <= WORKER_SEEN_WITHIN_MS;
  });
  if (seen) return;
  throw new CliError(
    'NO_WORKER',
    `no worker serves ${workflowId} (task queue ${taskQueue}): \`wharf ${command}\` needs one to record ` +
      `its answer. Give the run a worker with \`wharf resume ${workflowId}\` (the data directory it ran ` +
      'with), or start one on that queue, then try again.',
  );
}
