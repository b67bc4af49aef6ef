import { InMemoryArtifactStore } from '@wharf/evidence';
import { OutputStoreArtifactStore } from '@wharf/evidence/output-store';
import { InMemoryOutputStore, type OutputRecord } from '@wharf/output-store';
import { describe, expect, it } from 'vitest';
import { evidenceInStore, evidenceLines, runEvidence, runsOf } from './evidence-listing.js';

const record = (ownerId: string, runId: string) =>
  ({ producer: { ownerId, runId, spawnId: 's' } }) as unknown as OutputRecord;

describe('evidence beside the store', () => {
  it('is told apart from evidence kept in the store itself', () => {
    const store = new InMemoryOutputStore();
    expect(evidenceInStore(new OutputStoreArtifactStore({ outputs: store }), store)).toBe(true);
    expect(evidenceInStore(new OutputStoreArtifactStore({ outputs: new InMemoryOutputStore() }), store)).toBe(
      false,
    );
    expect(evidenceInStore(new InMemoryArtifactStore(), store)).toBe(false);
  });

  it("names a page's runs once each, in order, and a --run with no output", () => {
    expect(runsOf([record('o', 'r1'), record('o', 'r2'), record('o', 'r1'), record('p', 'r1')])).toEqual([
      { ownerId: 'o', runId: 'r1' },
      { ownerId: 'o', runId: 'r2' },
      { ownerId: 'p', runId: 'r1' },
    ]);
    expect(runsOf([], 'r9')).toEqual([{ ownerId: 'default', runId: 'r9' }]);
    expect(runsOf([])).toEqual([]);
  });

  it("lists each worker of the runs with its tool calls' stored ids and sizes", async () => {
    const artifacts = new InMemoryArtifactStore();
    const worker = { workerId: 'w1', jobId: 'lint.0', runId: 'r1', ownerId: 'o', startedAt: 'x' };
    await artifacts.putWorker({ ...worker, status: 'succeeded' });
    await artifacts.putWorker({ ...worker, workerId: 'w2', jobId: 'test.0', status: 'running' });
    await artifacts.putToolCall(
      'w1',
      { seq: 1, toolName: 'script', exitCode: 0, durationMs: 1, startedAt: 'a', endedAt: 'b' },
      'ok\n',
    );
    const evidence = await runEvidence(artifacts, [{ ownerId: 'o', runId: 'r1' }]);
    expect(evidenceLines(evidence)).toEqual([
      'w1  r1/lint.0  worker succeeded',
      '  w1/tool_calls/001_script.txt           3 B  script exit 0',
      'w2  r1/test.0  worker running',
    ]);
  });
});
