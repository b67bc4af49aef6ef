import proto from '@temporalio/proto';
import type { WharfClient } from '@wharf/orchestrator/client';
import { WORKER_SEEN_WITHIN_MS } from './require-worker.js';

const { TaskQueueKind, TaskQueueType } = proto.temporal.api.enums.v1;

/**
 * The identities of the workers that polled a task queue's activities lately: a Wharf worker's
 * says whether it runs scripts sandboxed (`123@host (sandbox on)`, or `(sandbox unavailable:
 * <why>)`). Empty when the server will not describe the queue.
 *
 * @example
 * ```ts
 * for (const identity of await queueWorkers(wharf, 'wharf')) console.log(`worker ${identity}`);
 * ```
 */
export async function queueWorkers(
  wharf: WharfClient,
  taskQueue: string,
  now: number = Date.now(),
): Promise<string[]> {
  const queue = await wharf.client.workflowService
    .describeTaskQueue({
      namespace: wharf.client.options.namespace,
      taskQueue: { name: taskQueue, kind: TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
      taskQueueType: TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
    })
    .catch(() => undefined);
  return (queue?.pollers ?? [])
    .filter((poller) => now - Number(poller.lastAccessTime?.seconds ?? 0) * 1000 <= WORKER_SEEN_WITHIN_MS)
    .map((poller) => poller.identity ?? '')
    .filter((identity) => identity !== '');
}
