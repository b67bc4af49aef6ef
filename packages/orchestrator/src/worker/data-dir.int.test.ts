import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FsArtifactStore } from '@wharf/evidence';
import { OutputStoreArtifactStore } from '@wharf/evidence/output-store';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDataDir } from './data-dir.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'wharf-data-dir-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const worker = {
  workerId: 'w1',
  jobId: 'j1',
  runId: 'r1',
  ownerId: 'o1',
  status: 'succeeded' as const,
  startedAt: '2026-01-01T00:00:00.000Z',
};

describe('openDataDir', () => {
  it('keeps evidence in artifacts/ beside outputs.db by default', async () => {
    const data = await openDataDir(join(root, 'local'), { env: {} });
    try {
      expect(data.artifacts).toBeInstanceOf(FsArtifactStore);
      await data.artifacts.putWorker(worker);
      expect(existsSync(join(root, 'local', 'artifacts'))).toBe(true);
      expect(existsSync(join(root, 'local', 'outputs.db'))).toBe(true);
    } finally {
      await data.close();
    }
  });

  it('with a configured store, writes evidence into it so another host reads it', async () => {
    const env = {
      WHARF_STORE: `sqlite://${join(root, 'shared', 'outputs.db')}`,
      WHARF_BLOBS: `file://${join(root, 'bodies')}`,
    };
    const hostA = await openDataDir(join(root, 'a'), { env });
    try {
      expect(hostA.artifacts).toBeInstanceOf(OutputStoreArtifactStore);
      await hostA.artifacts.putWorker(worker);
      await hostA.artifacts.putResult('w1', 'written on host a');
    } finally {
      await hostA.close();
    }
    // Nothing of the data plane went to host a's own directory.
    expect(existsSync(join(root, 'a', 'outputs.db'))).toBe(false);
    expect(existsSync(join(root, 'a', 'artifacts'))).toBe(false);
    const hostB = await openDataDir(join(root, 'b'), { env });
    try {
      expect(await hostB.artifacts.getResult('w1')).toBe('written on host a');
      expect(hostB.location.artifacts).toBe('in the output store');
    } finally {
      await hostB.close();
    }
  });
});
