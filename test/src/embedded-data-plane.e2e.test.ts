import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OutputStoreArtifactStore } from '@wharf/evidence/output-store';
import { parseSwarm } from '@wharf/orchestrator';
import { type Embedded, openDataDir, startEmbedded } from '@wharf/orchestrator/embedded';
import {
  createPostgresDatabase,
  createS3Bucket,
  injectedS3Connection,
  type PostgresDatabase,
} from '@wharf/output-store/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { taskQueueFor } from './temporal-env.js';

const BUCKET = 'wharf-embedded-e2e';

describe('embedded mode on a shared data plane', () => {
  let database: PostgresDatabase;
  let scratch: string;
  let embedded: Embedded | undefined;
  let env: Record<string, string>;
  let store: string;
  let blobs: string;
  const saved: Record<string, string | undefined> = {};

  beforeAll(async () => {
    database = await createPostgresDatabase(inject('postgresUrl'), 'embedded');
    const s3 = injectedS3Connection();
    await createS3Bucket(s3, BUCKET);
    scratch = await mkdtemp(join(tmpdir(), 'wharf-embedded-plane-'));
    env = {
      AWS_ACCESS_KEY_ID: s3.accessKeyId,
      AWS_SECRET_ACCESS_KEY: s3.secretAccessKey,
      AWS_REGION: s3.region,
    };
    // The S3 credentials come from the standard AWS variables, as on a real host.
    for (const name of Object.keys(env)) saved[name] = process.env[name];
    Object.assign(process.env, env);
    store = database.url;
    blobs = `s3://${BUCKET}/embedded?endpoint=${s3.endpoint}`;
    env = { ...env, WHARF_STORE: store, WHARF_BLOBS: blobs };
  });

  afterAll(async () => {
    await embedded?.stop();
    for (const [name, value] of Object.entries(saved))
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    await database?.drop();
    await rm(scratch, { recursive: true, force: true });
  });

  it('startEmbedded({ store, blobs }) keeps outputs and evidence where another host reads them', async () => {
    embedded = await startEmbedded({
      dataDir: join(scratch, 'embedded'),
      store,
      blobs,
      temporalAddress: inject('temporalAddress'),
      taskQueue: taskQueueFor('embedded-data-plane'),
      ui: false,
    });
    expect(embedded.data.storeConfig.kind).toBe('postgres');
    expect(embedded.data.artifacts).toBeInstanceOf(OutputStoreArtifactStore);
    const definition = parseSwarm(`
name: embedded-plane
tasks:
  write:
    script: { content: 'echo "from the embedded worker"; head -c 70000 /dev/zero | tr "\\000" "e"' }
`);
    const { workflowId } = await embedded.wharf.startSwarm(definition);
    const result = await embedded.wharf.result(workflowId);
    expect(result.status).toBe('completed');
    const outId = result.outputs.write?.[0] ?? '';

    // Another host: its own data directory, the same WHARF_STORE / WHARF_BLOBS.
    const other = await openDataDir(join(scratch, 'other'), { env });
    try {
      const { record, body } = await other.store.get({ outId });
      expect(record.storage).toBe('file');
      expect(Buffer.from(body).toString('utf8')).toBe(`from the embedded worker\n${'e'.repeat(70_000)}`);
      const workers = await other.artifacts.listWorkers({ ownerId: 'default', runId: record.producer.runId });
      expect(workers.map((worker) => [worker.task, worker.status])).toEqual([['write', 'succeeded']]);
    } finally {
      await other.close();
    }
  });
});
