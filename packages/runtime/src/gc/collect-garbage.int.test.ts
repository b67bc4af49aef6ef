import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FsArtifactStore } from '@wharf/evidence';
import { SqliteOutputStore } from '@wharf/output-store';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { storeSubagentDefinition } from '../activities/subagent-definition.js';
import { collectGarbage } from './collect-garbage.js';
import { startGcSchedule } from './gc-schedule.js';

const DAY = 86_400_000;
const START = Date.parse('2026-01-01T00:00:00Z');

describe('collectGarbage on a real SQLite store and artifact directory', () => {
  let dir: string;
  let clock: number;
  let store: SqliteOutputStore;
  let artifacts: FsArtifactStore;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wharf-gc-'));
    clock = START;
    store = new SqliteOutputStore({ path: join(dir, 'outputs.db'), now: () => clock });
    artifacts = new FsArtifactStore({ root: join(dir, 'artifacts') });
  });
  afterEach(async () => {
    store.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** Stores `bytes` bytes for run `runId` at day `day`, and records a worker of that run. */
  async function emit(runId: string, day: number, bytes: number) {
    clock = START + day * DAY;
    const ref = await store.emit({
      producer: { ownerId: 'team', runId, spawnId: `job-${day}` },
      content: { kind: 'text', text: 'x'.repeat(bytes) },
      idempotencyKey: `${runId}/${day}`,
    });
    await artifacts.putWorker({
      workerId: `${runId}:job-${day}`,
      jobId: `job-${day}`,
      runId,
      ownerId: 'team',
      status: 'succeeded',
      startedAt: new Date(clock).toISOString(),
    });
    return ref.outId;
  }

  it('keeps a run’s stored task definition past the age and the byte cap while the run keeps another output', async () => {
    clock = START;
    const definition = await storeSubagentDefinition(
      {
        ownerId: 'team',
        workflowId: 'run-long',
        definition: {
          swarm: 's',
          task: 'fan',
          definition: { depends_on: [], inputs: {} } as never,
          inRefs: [],
        },
      },
      store,
    );
    const early = await emit('run-long', 1, 100);
    const late = await emit('run-long', 9, 100);
    const first = await collectGarbage({
      store,
      policy: { olderThanMs: 5 * DAY, maxTotalBytes: 100 },
      now: START + 10 * DAY,
    });
    expect(first.outputs.map((output) => output.outId)).toEqual([early]);
    // The run's last other output gone (the byte cap), its definition goes with it, past the age.
    const second = await collectGarbage({
      store,
      policy: { olderThanMs: 5 * DAY, maxTotalBytes: 0 },
      now: START + 10 * DAY,
    });
    expect(second.outputs.map((output) => output.outId)).toEqual([late, definition]);
    expect(second.outputs.map((output) => output.reason)).toEqual(['evicted', 'expired']);
  });

  it('removes outputs older than the age and the evidence of runs left empty; dry-run removes nothing', async () => {
    const old = await emit('run-old', 0, 100);
    const mixedOld = await emit('run-mixed', 1, 200);
    const mixedNew = await emit('run-mixed', 9, 300);
    const fresh = await emit('run-new', 10, 400);
    const policy = { olderThanMs: 5 * DAY };
    const now = START + 10 * DAY;

    const preview = await collectGarbage({ store, artifacts, policy, dryRun: true, now });
    expect(preview.outputs.map((output) => output.outId)).toEqual([old, mixedOld]);
    expect(preview.runs).toEqual([{ ownerId: 'team', runId: 'run-old', workers: 1 }]);
    expect((await store.list({})).records).toHaveLength(4);
    expect(await artifacts.getWorker('run-old:job-0')).toBeDefined();

    const report = await collectGarbage({ store, artifacts, policy, now });
    expect(report.outputs).toEqual([
      expect.objectContaining({ outId: old, runId: 'run-old', sizeBytes: 100, reason: 'expired' }),
      expect.objectContaining({ outId: mixedOld, runId: 'run-mixed', sizeBytes: 200, reason: 'expired' }),
    ]);
    expect(report.freedBytes).toBe(300);
    expect(report.kept).toEqual({ outputs: 2, bytes: 700 });
    expect((await store.list({})).records.map((record) => record.outId)).toEqual([mixedNew, fresh]);
    expect(await artifacts.getWorker('run-old:job-0')).toBeUndefined();
    // A run that still has outputs keeps its evidence.
    expect(await artifacts.getWorker('run-mixed:job-1')).toBeDefined();
    await expect(store.stat({ outId: old })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('evicts oldest first down to the byte cap, and removes one run on request', async () => {
    const first = await emit('run-a', 0, 1_000);
    const second = await emit('run-b', 1, 1_000);
    const third = await emit('run-c', 2, 1_000);
    const capped = await collectGarbage({ store, artifacts, policy: { maxTotalBytes: 1_500 } });
    expect(capped.outputs.map((output) => [output.outId, output.reason])).toEqual([
      [first, 'evicted'],
      [second, 'evicted'],
    ]);
    const byRun = await collectGarbage({ store, artifacts, policy: { runId: 'run-c' } });
    expect(byRun.outputs.map((output) => [output.outId, output.reason])).toEqual([[third, 'deleted']]);
    expect(byRun.runs).toEqual([{ ownerId: 'team', runId: 'run-c', workers: 1 }]);
    expect((await store.list({})).records).toHaveLength(0);
  });

  it('a schedule collects on its interval and reports each run', async () => {
    await emit('run-old', 0, 10);
    clock = START + 30 * DAY;
    const reports: number[] = [];
    const schedule = startGcSchedule({
      store,
      artifacts,
      policy: { olderThanMs: DAY },
      intervalMs: 50,
      onReport: (report) => reports.push(report.outputs.length),
    });
    await expect.poll(() => reports.length, { timeout: 5_000 }).toBeGreaterThanOrEqual(2);
    await schedule.stop();
    // The first run removed the output; later runs found nothing more.
    expect(reports[0]).toBe(1);
    expect(reports.slice(1).every((count) => count === 0)).toBe(true);
  });
});
