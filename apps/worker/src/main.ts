#!/usr/bin/env node
// The Wharf worker process, configured by environment (see README). SIGTERM/SIGINT stop it
// gracefully: running subagents get WHARF_SHUTDOWN_GRACE_MS, then are handed back to Temporal.
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
}
