import { existsSync, readdirSync, statSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
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

/** Permission bits of each path under `root` (relative names), folders and files. */
function modesUnder(root: string, names: readonly string[]): Record<string, string> {
  return Object.fromEntries(
    names.map((name) => [name, (statSync(join(root, name)).mode & 0o777).toString(8)]),
  );
}

describe('openDataDir', () => {
  it('keeps its data private whatever the umask, and tightens what an older version left open', async () => {
    const dir = join(root, 'private');
    const large = { kind: 'bytes' as const, bytes: new Uint8Array(100_000).fill(7) };
    const fill = async () => {
      const data = await openDataDir(dir, { env: {} });
      await data.store.emit({
        producer: { ownerId: 'o', runId: 'r', spawnId: 's' },
        content: large,
        idempotencyKey: 'k',
      });
      await data.artifacts.putWorker(worker);
      await data.artifacts.putToolCall(
        'w1',
        { seq: 1, toolName: 'shell', exitCode: 0, durationMs: 1, startedAt: 't0', endedAt: 't1' },
        'printed by a tool',
      );
      return data;
    };
    const bodyFolder = () =>
      `outputs.db.blobs/${readdirSync(join(dir, 'outputs.db.blobs')).find((name) => /^[0-9a-f]{2}$/.test(name))}`;
    const data = await fill();
    try {
      const body = bodyFolder();
      expect(
        modesUnder(dir, [
          '.',
          'secret',
          'outputs.db',
          'outputs.db-wal',
          'outputs.db-shm',
          'outputs.db.blobs',
          body,
          'artifacts',
          'artifacts/workers',
          'artifacts/workers/w1',
        ]),
      ).toEqual({
        '.': '700',
        secret: '600',
        'outputs.db': '600',
        'outputs.db-wal': '600',
        'outputs.db-shm': '600',
        'outputs.db.blobs': '700',
        [body]: '700',
        artifacts: '700',
        'artifacts/workers': '700',
        'artifacts/workers/w1': '700',
      });
    } finally {
      await data.close();
    }
    // As a version before these modes left them (umask 022).
    for (const name of ['.', 'outputs.db.blobs', 'artifacts']) await chmod(join(dir, name), 0o755);
    for (const name of ['secret', 'outputs.db']) await chmod(join(dir, name), 0o644);
    const again = await openDataDir(dir, { env: {} });
    try {
      expect(modesUnder(dir, ['.', 'secret', 'outputs.db', 'outputs.db.blobs', 'artifacts'])).toEqual({
        '.': '700',
        secret: '600',
        'outputs.db': '600',
        'outputs.db.blobs': '700',
        artifacts: '700',
      });
    } finally {
      await again.close();
    }
  });

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
