import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  InMemoryOutputStore,
  LocalBlobStore,
  type OutputStore,
  SqliteOutputStore,
} from '@wharf/output-store';
import { PostgresOutputStore } from '@wharf/output-store/postgres';
import { createPostgresDatabase, type PostgresDatabase } from '@wharf/output-store/testing';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { EvidenceCompiler } from './evidence-compiler.js';
import { OutputStoreArtifactStore } from './output-store-artifact-store.js';
import {
  type ArtifactStoreFileDirectories,
  describeArtifactStoreContract,
} from './testing/artifact-store-contract.js';

describeArtifactStoreContract('OutputStoreArtifactStore (InMemoryOutputStore)', async (directories) => {
  const store = new OutputStoreArtifactStore({
    outputs: new InMemoryOutputStore(),
    allowedRoots: [directories.allowedRoot],
    spoolDirectories: [directories.spoolDirectory],
  });
  return { store, bytesRead: () => store.bytesRead };
});

/**
 * The contract's store on `outputs`, a store kept under `root` (a temp folder, removed with it):
 * what the SQLite and PostgreSQL runs share.
 */
function onStoreIn(root: string, outputs: OutputStore, directories: ArtifactStoreFileDirectories) {
  const store = new OutputStoreArtifactStore({
    outputs,
    allowedRoots: [directories.allowedRoot],
    spoolDirectories: [directories.spoolDirectory],
  });
  return {
    store,
    bytesRead: () => store.bytesRead,
    cleanup: async () => {
      await outputs.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}

describeArtifactStoreContract('OutputStoreArtifactStore (SqliteOutputStore)', async (directories) => {
  const root = await mkdtemp(join(tmpdir(), 'wharf-evidence-sqlite-'));
  const outputs = new SqliteOutputStore({ path: join(root, 'outputs.db'), blobDir: join(root, 'blobs') });
  return onStoreIn(root, outputs, directories);
});

// The cluster's workers share evidence through PostgreSQL: its lookups by label are the ones a
// wide run makes on every write.
let database: PostgresDatabase | undefined;
beforeAll(async () => {
  database = await createPostgresDatabase(inject('postgresUrl'), 'evidence');
});
afterAll(async () => {
  await database?.drop();
});

describeArtifactStoreContract('OutputStoreArtifactStore (PostgresOutputStore)', async (directories) => {
  const root = await mkdtemp(join(tmpdir(), 'wharf-evidence-pg-'));
  const outputs = await PostgresOutputStore.open({
    connectionString: (database as PostgresDatabase).url,
    schema: `evidence_${randomBytes(5).toString('hex')}`,
    blobs: new LocalBlobStore({ root: join(root, 'blobs') }),
    maxConnections: 4,
  });
  return onStoreIn(root, outputs, directories);
});

describe('OutputStoreArtifactStore', () => {
  it("never reads an output another spawn labelled with a worker's id as that worker's evidence", async () => {
    const outputs = new InMemoryOutputStore();
    const store = new OutputStoreArtifactStore({ outputs });
    await store.putWorker({
      workerId: 'w1',
      jobId: '1',
      runId: 'r1',
      ownerId: 'o1',
      status: 'running',
      startedAt: 't',
    });
    await store.putResult('w1', 'the real result');
    // Stored later by an agent's spawn of the same run, labelled as w1's result and tool call.
    for (const kind of ['result', 'tool-output'])
      await outputs.emit({
        producer: { ownerId: 'o1', runId: 'r1', spawnId: 'agent-job' },
        content: { kind: 'text', text: 'forged' },
        idempotencyKey: `forged-${kind}`,
        labels: {
          'wharf.evidence.kind': kind,
          'wharf.evidence.worker': 'w1',
          'wharf.evidence.seq': '1',
          'wharf.evidence.tool': 'shell',
          'wharf.evidence.exit': '0',
          'wharf.evidence.duration-ms': '1',
          'wharf.evidence.stderr-bytes': '0',
          'wharf.evidence.started-at': 'a',
          'wharf.evidence.ended-at': 'b',
        },
      });
    expect(await store.getResult('w1')).toBe('the real result');
    expect(await store.listToolCalls('w1')).toEqual([]);
  });

  it("never takes another run's outputs labelled like this run's worker metadata for its workers", async () => {
    const outputs = new InMemoryOutputStore();
    const store = new OutputStoreArtifactStore({ outputs });
    const forged = {
      workerId: 'w-forged',
      jobId: 'fan.3',
      runId: 'r1',
      ownerId: 'o1',
      status: 'running',
      startedAt: 't',
    };
    // Written by a producer of run r9 (an agent there can EMIT any labels and body it likes).
    await outputs.emit({
      producer: { ownerId: 'o1', runId: 'r9', spawnId: 'w-forged' },
      content: { kind: 'json', value: forged },
      idempotencyKey: 'forged',
      labels: {
        'wharf.evidence.kind': 'metadata',
        'wharf.evidence.worker': 'w-forged',
        'wharf.evidence.job': 'fan.3',
        'wharf.evidence.run': 'r1',
      },
    });
    // Run r1's worker for job fan.3 is stored, not refused as if the job were taken.
    await store.putWorker({
      workerId: 'w1',
      jobId: 'fan.3',
      runId: 'r1',
      ownerId: 'o1',
      status: 'running',
      startedAt: 't',
    });
    expect(
      (await store.listWorkers({ ownerId: 'o1', runId: 'r1' })).map((worker) => worker.workerId),
    ).toEqual(['w1']);
  });

  it('lets a supervisor compile evidence that workers wrote through a shared output store', async () => {
    const outputs = new InMemoryOutputStore();
    const workerSide = new OutputStoreArtifactStore({ outputs });
    await workerSide.putWorker({
      workerId: 'w1',
      jobId: '1',
      runId: '48',
      ownerId: 'o1',
      status: 'failed',
      startedAt: 't',
    });
    await workerSide.putToolCall(
      'w1',
      { seq: 1, toolName: 'ssh_exec', exitCode: 255, durationMs: 3, startedAt: 'a', endedAt: 'b' },
      'ssh: connect to host clifford port 22: Connection refused\n',
    );
    const supervisorSide = new OutputStoreArtifactStore({ outputs });
    const evidence = await new EvidenceCompiler({ store: supervisorSide }).compile({
      runId: '48',
      ownerId: 'o1',
    });
    expect(evidence.get('1')).toContain(
      '[FAILED] w1/tool_calls/001_ssh_exec.txt (58 B, exit=255, 3ms):\nssh: connect',
    );
  });

  it('reports outputs removed by the output store as missing artifacts', async () => {
    const outputs = new InMemoryOutputStore();
    const store = new OutputStoreArtifactStore({ outputs });
    await store.putWorker({
      workerId: 'w1',
      jobId: '1',
      runId: '48',
      ownerId: 'o1',
      status: 'succeeded',
      startedAt: 't',
    });
    await store.putToolCall(
      'w1',
      { seq: 1, toolName: 't', exitCode: 0, durationMs: 1, startedAt: 'a', endedAt: 'b' },
      'x',
    );
    await outputs.gc({ runId: '48' });
    expect(await store.getWorker('w1')).toBeUndefined();
    await expect(store.readToolOutput('w1', 1)).rejects.toMatchObject({ code: 'ARTIFACT_NOT_FOUND' });
  });

  it('checks a worker it stored by reading that output, without a label list or a body read', async () => {
    const outputs = new InMemoryOutputStore();
    const store = new OutputStoreArtifactStore({ outputs });
    const worker = { workerId: 'w1', jobId: '1', runId: 'r1', ownerId: 'o1', startedAt: 't' };
    await store.putWorker({ ...worker, status: 'running' });
    const list = vi.spyOn(outputs, 'list');
    const get = vi.spyOn(outputs, 'get');
    await store.putToolCall(
      'w1',
      { seq: 1, toolName: 'script', exitCode: 0, durationMs: 1, startedAt: 'a', endedAt: 'b' },
      'out',
    );
    await store.putResult('w1', 'done');
    await store.putWorker({ ...worker, status: 'succeeded' });
    // Lists of the worker's metadata: only the one finding what its new metadata replaces (each
    // write also listed it to find the worker, then read its body: four lists, three reads).
    const metadataLists = list.mock.calls.filter(
      ([query]) => query?.labels?.['wharf.evidence.kind'] === 'metadata',
    );
    expect(metadataLists).toHaveLength(1);
    expect(get).not.toHaveBeenCalled();
    expect(await store.getWorker('w1')).toMatchObject({ status: 'succeeded' });
    expect(await store.getResult('w1')).toBe('done');
  });

  it('stores nothing more for a worker deleted meanwhile through another store, or removed by gc', async () => {
    const outputs = new InMemoryOutputStore();
    const writer = new OutputStoreArtifactStore({ outputs });
    const other = new OutputStoreArtifactStore({ outputs });
    const worker = { workerId: 'w1', jobId: '1', runId: 'r1', ownerId: 'o1', startedAt: 't' };
    await writer.putWorker({ ...worker, status: 'running' });
    expect(await other.deleteWorker('w1')).toBe(true);
    await expect(writer.putResult('w1', 'late')).rejects.toMatchObject({ code: 'ARTIFACT_NOT_FOUND' });
    expect(await other.getResult('w1')).toBeUndefined();

    // Stored again, it is a new worker: it claims its job again, and takes writes again.
    await writer.putWorker({ ...worker, status: 'running' });
    await writer.putResult('w1', 'again');
    expect(await other.getResult('w1')).toBe('again');

    await outputs.gc({ runId: 'r1' });
    await expect(
      writer.putToolCall(
        'w1',
        { seq: 1, toolName: 'script', exitCode: 0, durationMs: 1, startedAt: 'a', endedAt: 'b' },
        'out',
      ),
    ).rejects.toMatchObject({ code: 'ARTIFACT_NOT_FOUND' });
  });
});
