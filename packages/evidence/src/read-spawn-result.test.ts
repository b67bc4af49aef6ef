import { describe, expect, it } from 'vitest';
import { formatSpawnResult } from './format-spawn-result.js';
import { InMemoryArtifactStore } from './in-memory-artifact-store.js';
import { readSpawnResult } from './read-spawn-result.js';

describe('readSpawnResult', () => {
  it('assembles the compact payload from what the worker recorded', async () => {
    const store = new InMemoryArtifactStore();
    await store.putWorker({
      workerId: 'abc-123',
      jobId: '123',
      runId: '48',
      ownerId: 'o1',
      status: 'failed',
      startedAt: '2026-01-18T10:00:00.000Z',
      endedAt: '2026-01-18T10:00:45.200Z',
    });
    await store.putToolCall(
      'abc-123',
      { seq: 1, toolName: 'ssh_exec', exitCode: 1, durationMs: 156, startedAt: 'a', endedAt: 'b' },
      'Connection refused\n',
    );
    await store.putResult('abc-123', 'Could not reach clifford.');
    const result = await readSpawnResult(store, 'abc-123');
    expect(result).toMatchObject({ runId: '48', jobId: '123', status: 'failed', durationMs: 45_200 });
    const payload = formatSpawnResult(result);
    expect(payload).toContain('Worker job 123 failed.\nDuration: 45.2s | Worker ID: abc-123');
    expect(payload).toContain('  1. ssh_exec [FAILED, exit=1, 156ms, 19 bytes]');
    expect(payload).toContain('Summary: Could not reach clifford.');
    expect(payload).not.toContain('Connection refused');
  });

  it('throws ARTIFACT_NOT_FOUND for an unknown worker', async () => {
    await expect(readSpawnResult(new InMemoryArtifactStore(), 'nobody')).rejects.toMatchObject({
      code: 'ARTIFACT_NOT_FOUND',
    });
  });
});
