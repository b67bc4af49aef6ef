import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDataDir } from '@wharf/orchestrator/embedded';
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

describe('startWorker with WHARF_GC_INTERVAL', () => {
  it('collects garbage in its data directory on the interval, by the configured policy', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wharf-worker-gc-'));
    try {
      const seeded = await openDataDir(dir);
      const ref = await seeded.store.emit({
        producer: { ownerId: 'team', runId: 'old-run', spawnId: 'job' },
        content: { kind: 'text', text: 'x'.repeat(2_000) },
        idempotencyKey: 'old',
      });
      await seeded.close();
      const lines: Record<string, unknown>[] = [];
      const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
      const worker = await startWorker(
        loadWorkerConfig({
          TEMPORAL_ADDRESS: inject('temporalAddress'),
          WHARF_DATA_DIR: dir,
          WHARF_TASK_QUEUE: `worker-app-gc-${process.pid}`,
          WHARF_GC_INTERVAL: '200ms',
          WHARF_GC_MAX_BYTES: '1KiB',
        }),
        logger,
      );
      await expect.poll(() => lines.some((line) => line.msg === 'gc'), { timeout: 10_000 }).toBe(true);
      await worker.stop();
      expect(lines.find((line) => line.msg === 'gc')).toMatchObject({
        removed: 1,
        freedBytes: 2_000,
        runs: ['old-run'],
      });
      const after = await openDataDir(dir);
      await expect(after.store.stat(ref)).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await after.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
