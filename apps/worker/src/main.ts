#!/usr/bin/env -S node --max-semi-space-size=16 --max-old-space-size=1024
// The Wharf worker process, configured by environment (see README). SIGTERM/SIGINT stop it
// gracefully: running subagents get WHARF_SHUTDOWN_GRACE_MS, then are handed back to Temporal.
// The flags above keep its memory near what it uses (README, "Memory"): young generation
// 16 MiB a semi-space instead of growing to 64, and a heap ceiling that makes V8 collect before
// the old generation grows to several times what is live. They also keep each script's spawn
// cheap: a spawn forks the worker, and a fork costs in proportion to its resident memory.
import { Runtime } from '@temporalio/worker';
import { InvalidConfigError } from '@wharf/orchestrator/client';
import { loadWorkerConfig } from './config.js';
import { startWorker } from './start-worker.js';
import { WorkerConfigError } from './worker-config-error.js';

try {
  const worker = await startWorker(loadWorkerConfig(process.env));
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => void worker.stop());
  await worker.done;
} catch (error) {
  console.error(
    WorkerConfigError.isInstance(error) || InvalidConfigError.isInstance(error) ? error.message : error,
  );
  process.exitCode = 1;
  // A runtime that forwards Core's logs keeps the event loop alive until it is shut down: a
  // worker that failed to start must still exit.
  await Runtime._instance?.shutdown().catch(() => undefined);
}
