#!/usr/bin/env node
// The codec server of the workers' data plane (`wharf-codec-server`), configured by environment:
// the compose file's and `wharf cluster up`'s `wharf-codec` service (see README, "The codec
// server"). SIGTERM/SIGINT stop it.
import { loadCodecServerConfig } from './codec-config.js';
import { startCodecService } from './start-codec-service.js';
import { WorkerConfigError } from './worker-config-error.js';

try {
  const codec = await startCodecService(loadCodecServerConfig(process.env), process.env);
  await new Promise<void>((resolve) => {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => resolve());
  });
  await codec.close();
} catch (error) {
  console.error(WorkerConfigError.isInstance(error) ? error.message : error);
  process.exitCode = 1;
}
