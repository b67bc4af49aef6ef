import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadWorkerConfig } from './config.js';
import { type RunningWorker, startWorker } from './start-worker.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Set by the repository's global setup (test/src/global-setup.ts). */
    temporalAddress: string;
  }
}

describe('startWorker', () => {
  let dir: string;
  let worker: RunningWorker;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wharf-worker-'));
    worker = await startWorker(
      loadWorkerConfig({
        TEMPORAL_ADDRESS: inject('temporalAddress'),
        WHARF_DATA_DIR: dir,
        WHARF_TASK_QUEUE: `worker-app-${process.pid}`,
      }),
      pino({ level: 'silent' }),
    );
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('serves a health endpoint while running and stops gracefully', async () => {
    const response = await fetch(worker.healthUrl);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ status: 'ok', worker: 'RUNNING' });
    const intake = await fetch(`${worker.intakeUrl}/healthz`);
    expect(intake.status).toBe(200);

    await worker.stop();
    await expect(fetch(worker.healthUrl)).rejects.toThrow();
  });
});
