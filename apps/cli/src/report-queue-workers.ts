import type { Embedded } from '@wharf/orchestrator/embedded';
import type { CliIo } from './output.js';
import { queueWorkers } from './queue-workers.js';

/**
 * For `wharf run --no-worker`: says which workers poll the swarm's task queue, or warns that
 * none does (the swarm then waits until one polls).
 *
 * @example
 * ```ts
 * await reportQueueWorkers(embedded, io); // wharf: task queue wharf: workers 123@host-a (sandbox on), …
 * ```
 */
export async function reportQueueWorkers(embedded: Embedded, io: CliIo): Promise<void> {
  const workers = await queueWorkers(embedded.wharf, embedded.taskQueue);
  io.err(
    workers.length > 0
      ? `wharf: no worker in this command; task queue ${embedded.taskQueue} has workers ${workers.join(', ')}`
      : `wharf: warning: no worker polls task queue ${embedded.taskQueue}; the swarm waits until one does`,
  );
}
