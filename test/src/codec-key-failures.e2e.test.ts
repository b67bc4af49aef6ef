import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from '@temporalio/worker';
import { FsArtifactStore } from '@wharf/evidence';
import { WharfClient } from '@wharf/orchestrator/client';
import { createWharfDataConverter, type KeyRing, parseKeyRing } from '@wharf/orchestrator/node';
import { createActivities, createWharfWorker } from '@wharf/orchestrator/worker';
import { SqliteOutputStore } from '@wharf/output-store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wharfBundle } from './swarm-env.js';
import { connectTestEnv, type TemporalTestEnv, taskQueueFor } from './temporal-env.js';

// What a process with the wrong key ring sees: readable failures naming the key id it lacks,
// an activity that fails at once instead of retrying, and no key in them.
const key = (id: string) => `${id}:${randomBytes(32).toString('base64')}`;
const k1 = key('k1');
const k9 = key('k9');
const oldRing = parseKeyRing(k1);
const newRing = parseKeyRing(`${k9},${k1}`);

const swarm = (name: string) => `
name: ${name}
tasks:
  greet: { script: { content: echo hello } }
`;

describe('payload encryption with a key the reader lacks', () => {
  let env: TemporalTestEnv;
  let dir: string;
  let store: SqliteOutputStore;
  let artifacts: FsArtifactStore;

  beforeAll(async () => {
    env = await connectTestEnv();
    dir = await mkdtemp(join(tmpdir(), 'wharf-codec-keys-'));
    store = new SqliteOutputStore({ path: join(dir, 'outputs.db') });
    artifacts = new FsArtifactStore({ root: join(dir, 'artifacts'), spoolDirectories: [join(dir, 'work')] });
  });
  afterAll(async () => {
    await store?.close();
    await env?.close();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  function client(taskQueue: string, keyRing: KeyRing): WharfClient {
    return new WharfClient({
      connection: env.client.connection,
      taskQueue,
      dataConverter: createWharfDataConverter({ store, keyRing }),
    });
  }

  it("fails a workflow task it cannot decode with the key id in the failure's message", async () => {
    const taskQueue = taskQueueFor('codec-wft');
    const wharf = client(taskQueue, parseKeyRing(k9));
    const { workflowId } = await wharf.startSwarm(swarm('codec-wft'));
    const worker = await createWharfWorker({
      connection: env.nativeConnection,
      taskQueue,
      store,
      artifacts,
      workDir: join(dir, 'work'),
      workflowBundle: await wharfBundle(),
      keyRing: oldRing,
    });
    const handle = env.client.workflow.getHandle(workflowId);
    const message = await worker.runUntil(async () => {
      for (let attempt = 0; attempt < 300; attempt++) {
        const history = await handle.fetchHistory();
        const failed = history.events?.find((event) => event.workflowTaskFailedEventAttributes);
        const failure = failed?.workflowTaskFailedEventAttributes?.failure;
        if (failure) return failure.message ?? '';
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error('no workflow task failed');
    });
    await handle.terminate('test over');
    expect(message).toContain('"k9"');
    expect(message).toContain('which this key ring does not hold');
    expect(message).not.toContain(k9.slice(3));
  });

  it('fails an activity whose input is under an unknown key id at its first attempt, naming the key id', async () => {
    const taskQueue = taskQueueFor('codec-activity');
    const wharf = client(taskQueue, newRing);
    // The workflows (and their local activities) run on the new ring; the subagents on a worker
    // still on the old one, which cannot open the inputs the new ring encrypted.
    const workflows = await createWharfWorker({
      connection: env.nativeConnection,
      taskQueue,
      store,
      artifacts,
      workDir: join(dir, 'work'),
      workflowBundle: await wharfBundle(),
      keyRing: newRing,
      workerOptions: { enableNonLocalActivities: false },
    });
    const subagents = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      activities: createActivities({ store, artifacts, workDir: join(dir, 'work') }),
      dataConverter: createWharfDataConverter({ store, keyRing: oldRing }),
    });
    const started = Date.now();
    const { workflowId } = await wharf.startSwarm(swarm('codec-activity'));
    const result = await subagents.runUntil(workflows.runUntil(wharf.result(workflowId)));
    // Retried, it would have waited 1 s, 2 s and 4 s between four attempts.
    expect(Date.now() - started).toBeLessThan(6_000);
    const greet = result.tasks.find((task) => task.task === 'greet');
    expect(greet?.status).toBe('failed');
    expect(greet?.reason).toContain('"k9"');
    const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
    const failures = (history.events ?? []).filter((event) => event.activityTaskFailedEventAttributes);
    expect(failures).toHaveLength(1);
    const failure = failures[0]?.activityTaskFailedEventAttributes?.failure;
    expect(failure?.applicationFailureInfo?.type).toBe('UnknownKeyIdError');
    expect(failure?.message).toContain('"k9"');
  });
});
