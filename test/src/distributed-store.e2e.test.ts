import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parseSwarm } from '@wharf/orchestrator';
import { WharfClient } from '@wharf/orchestrator/client';
import { type DataDir, openDataDir } from '@wharf/orchestrator/embedded';
import { createWharfDataConverter } from '@wharf/orchestrator/node';
import type { OutputRecord } from '@wharf/output-store';
import {
  createPostgresDatabase,
  createS3Bucket,
  injectedS3Connection,
  type PostgresDatabase,
} from '@wharf/output-store/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connectTestEnv, type TemporalTestEnv, taskQueueFor } from './temporal-env.js';

// Two worker processes, each with a data directory of its own (two hosts), one task queue, and
// one data plane: a real PostgreSQL database for the records and a real S3 server for the bodies.
const execFileAsync = promisify(execFile);
const workerMain = fileURLToPath(new URL('../../apps/worker/dist/main.js', import.meta.url));
const cli = fileURLToPath(new URL('../../apps/cli/dist/main.js', import.meta.url));
const BUCKET = 'wharf-distributed-e2e';
// Over PostgresOutputStore's 64 KiB inline threshold: every body goes to the bucket.
const BODY_BYTES = 100_000;

interface WorkerProcess {
  child: ChildProcess;
  /** The Temporal worker identity it polls with (`pid@host`). */
  identity: string;
  log: string[];
}

describe('a data plane that spans machines', () => {
  let temporal: TemporalTestEnv;
  let database: PostgresDatabase;
  let planeEnv: Record<string, string>;
  let scratch: string;
  let supervisor: DataDir;
  const started: WorkerProcess[] = [];
  // Both tests run on the same two hosts (the second kills host-a): one task queue, and two
  // worker processes started once, side by side, rather than four one after the other.
  const taskQueue = taskQueueFor('distributed-store');
  let hostA: WorkerProcess;
  let hostB: WorkerProcess;

  beforeAll(async () => {
    temporal = await connectTestEnv();
    database = await createPostgresDatabase(inject('postgresUrl'), 'distributed');
    const s3 = injectedS3Connection();
    await createS3Bucket(s3, BUCKET);
    planeEnv = {
      WHARF_STORE: database.url,
      WHARF_BLOBS: `s3://${BUCKET}/outputs?endpoint=${s3.endpoint}`,
      AWS_ACCESS_KEY_ID: s3.accessKeyId,
      AWS_SECRET_ACCESS_KEY: s3.secretAccessKey,
      AWS_REGION: s3.region,
    };
    scratch = await mkdtemp(join(tmpdir(), 'wharf-distributed-'));
    // A third host: the client and the supervisor, reading the same data plane.
    supervisor = await openDataDir(join(scratch, 'supervisor'), { env: planeEnv });
    // Three subagents at most per worker: a wave of instances cannot all land on one of them.
    [hostA, hostB] = await Promise.all([startWorker('host-a', 3), startWorker('host-b', 3)]);
  });

  afterAll(async () => {
    for (const worker of started) await stopWorker(worker);
    await supervisor?.close();
    await temporal?.close();
    await database?.drop();
    await rm(scratch, { recursive: true, force: true });
  });

  /** `apps/worker` in a process of its own, on its own data directory, configured by env. */
  async function startWorker(host: string, maxConcurrent: number): Promise<WorkerProcess> {
    const child = spawn(process.execPath, [workerMain], {
      env: {
        ...process.env,
        ...planeEnv,
        TEMPORAL_ADDRESS: temporal.address,
        WHARF_TASK_QUEUE: taskQueue,
        WHARF_DATA_DIR: join(scratch, `${host}-${taskQueue}`),
        WHARF_MAX_CONCURRENT: String(maxConcurrent),
        WHARF_SHUTDOWN_GRACE_MS: '1000',
        LOG_LEVEL: 'info',
        // Inherited by the scripts it runs: each output says which host wrote it.
        WHARF_TEST_HOST: host,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const worker: WorkerProcess = { child, identity: `${child.pid}@`, log: [] };
    started.push(worker);
    child.stderr?.on('data', (chunk) => worker.log.push(String(chunk)));
    let buffered = '';
    for await (const chunk of child.stdout ?? []) {
      buffered += String(chunk);
      worker.log.push(String(chunk));
      const line = buffered.split('\n').find((text) => text.includes('"worker-start"'));
      if (line !== undefined) {
        const logged = JSON.parse(line) as { store: string; blobs: string };
        // It logs where its data plane is, without the database password.
        expect(logged.store).toBe(new URL(database.url).toString().replace(/:[^:@/]*@/, '@'));
        expect(logged.blobs).toContain(`s3://${BUCKET}/outputs`);
        // Keep draining its output so the pipe never fills.
        child.stdout?.on('data', (more) => worker.log.push(String(more)));
        return worker;
      }
    }
    throw new Error(`worker ${host} exited before it started:\n${worker.log.join('')}`);
  }

  /**
   * A client on `taskQueue` whose converter reads offloaded payloads from the shared store. Its
   * swarms name the data plane as the third host sees it: the workers, on other data
   * directories with the same URLs, must see the same one, else they refuse every task.
   */
  function client(): WharfClient {
    return new WharfClient({
      connection: temporal.client.connection,
      taskQueue,
      dataConverter: createWharfDataConverter({ store: supervisor.store }),
      dataPlane: supervisor.dataPlane,
    });
  }

  async function stopWorker(worker: WorkerProcess): Promise<void> {
    if (worker.child.exitCode !== null || worker.child.signalCode !== null) return;
    worker.child.kill('SIGTERM');
    await once(worker.child, 'exit');
  }

  async function wharfCli(args: string[], dataDir: string): Promise<string> {
    const { stdout } = await execFileAsync(process.execPath, [cli, ...args, '--data-dir', dataDir], {
      // `wharf status` checks the Temporal server too: the one the swarm ran on.
      env: { ...process.env, ...planeEnv, TEMPORAL_ADDRESS: temporal.address },
      timeout: 120_000,
      maxBuffer: 64 * 2 ** 20,
    });
    return stdout;
  }

  async function recordsOf(store: DataDir['store'], task: string): Promise<OutputRecord[]> {
    const records: OutputRecord[] = [];
    let cursor: string | undefined;
    do {
      const page = await store.list({ ownerId: 'default', limit: 1000, ...(cursor ? { cursor } : {}) });
      records.push(...page.records.filter((record) => record.labels.task === task));
      cursor = page.nextCursor;
    } while (cursor);
    return records;
  }

  it('runs one swarm on two workers with separate disks; every output and all evidence is readable from any host', async () => {
    const INSTANCES = 8;
    const wharf = client();
    const definition = parseSwarm(`
name: distributed
tasks:
  fan:
    loop: { type: repeat, count: ${INSTANCES} }
    script: { content: 'sleep 1; echo "instance $WHARF_INSTANCE on $WHARF_TEST_HOST"; head -c ${BODY_BYTES} /dev/zero | tr "\\000" "x"' }
`);
    const { workflowId } = await wharf.startSwarm(definition);
    const result = await wharf.result(workflowId);
    expect(result.status).toBe('completed');
    const outIds = result.outputs.fan ?? [];
    expect(outIds).toHaveLength(INSTANCES);

    // Both hosts ran instances, and each body is whole, read back through either worker's store.
    const hostOf = new Map<string, string>();
    const workerStores = [
      await openDataDir(join(scratch, `host-a-${taskQueue}`), { env: planeEnv }),
      await openDataDir(join(scratch, `host-b-${taskQueue}`), { env: planeEnv }),
    ];
    try {
      for (const [index, outId] of outIds.entries()) {
        const bodies = await Promise.all(
          workerStores.map(async (data) =>
            Buffer.from((await data.store.get({ outId })).body).toString('utf8'),
          ),
        );
        expect(bodies[0]).toBe(bodies[1]);
        const match = /^instance (\d+) on (host-[ab])\n(x*)$/.exec(bodies[0] ?? '');
        expect(match?.[1]).toBe(String(index));
        expect(match?.[3]).toHaveLength(BODY_BYTES);
        hostOf.set(outId, match?.[2] ?? '');
        // Too big for the row: the body lives in the bucket, not on either worker's disk.
        expect((await workerStores[0]?.store.stat({ outId }))?.storage).toBe('file');
      }
    } finally {
      for (const data of workerStores) await data.close();
    }
    expect(new Set(hostOf.values())).toEqual(new Set(['host-a', 'host-b']));

    // The CLI on a third data directory lists the same outputs and shows a body of each host
    // (every body was read above through both workers' stores; a `wharf` process costs seconds).
    // Its first command creates the directory; the others, side by side, only read it.
    const cliDir = join(scratch, 'cli');
    const listedText = await wharfCli(['outputs', 'list', '--run', workflowId, '--json'], cliDir);
    const shownIds = ['host-a', 'host-b'].map(
      (host) => [...hostOf].find(([, ranOn]) => ranOn === host)?.[0] as string,
    );
    const [heads, status, evidenceText] = await Promise.all([
      Promise.all(shownIds.map((outId) => wharfCli(['outputs', 'show', outId, '--range', '0-32'], cliDir))),
      wharfCli(['status'], cliDir),
      wharfCli(['evidence', workflowId, '--json', '--budget', '200000'], cliDir),
    ]);
    const listed = JSON.parse(listedText) as {
      outId: string;
      labels: Record<string, string>;
    }[];
    expect(
      listed
        .filter((record) => record.labels.task === 'fan')
        .map((record) => record.outId)
        .sort(),
    ).toEqual([...outIds].sort());
    for (const [index, outId] of shownIds.entries()) {
      // Bytes 0-32 (end exclusive): the instance's line, then the start of its padding.
      const line = `instance ${outIds.indexOf(outId)} on ${hostOf.get(outId)}\n`;
      expect(heads[index]).toBe(line.padEnd(32, 'x'));
    }
    expect(status).toContain(`store:    ${new URL(database.url).toString().replace(/:[^:@/]*@/, '@')}`);
    expect(status).toContain(`blobs:    s3://${BUCKET}/outputs (endpoint `);
    expect(status).toContain('evidence: in the output store');

    // The supervisor's evidence (compiled from the shared store, as `wharf evidence` does)
    // holds the subagents of both hosts.
    const evidence = JSON.parse(evidenceText) as { evidence: Record<string, string> };
    const text = Object.values(evidence.evidence).join('\n');
    expect(text).toContain('on host-a');
    expect(text).toContain('on host-b');
    // Each subagent's record, written by whichever host ran it, is in the one artifact store.
    const { runId } = (await supervisor.store.stat({ outId: outIds[0] ?? '' })).producer;
    const workers = await supervisor.artifacts.listWorkers({ ownerId: 'default', runId });
    expect(workers.filter((worker) => worker.task === 'fan' && worker.status === 'succeeded')).toHaveLength(
      INSTANCES,
    );
  });

  it('finishes a swarm when one of the two workers is SIGKILLed mid-run; every output is stored exactly once', async () => {
    const INSTANCES = 6;
    const crashClient = client();
    // Three subagents at most each: the six instances are split between the two workers.
    const [doomed, survivor] = [hostA, hostB];
    expect(survivor.child.exitCode).toBeNull();
    const definition = parseSwarm(`
name: distributed-crash
tasks:
  slow:
    loop: { type: repeat, count: ${INSTANCES} }
    script: { content: 'sleep 3; echo "instance $WHARF_INSTANCE on $WHARF_TEST_HOST"; head -c ${BODY_BYTES} /dev/zero | tr "\\000" "y"' }
`);
    const { workflowId, handle } = await crashClient.startSwarm(
      definition,
      {},
      { heartbeatTimeoutMs: 3_000 },
    );
    // Wait until the doomed worker is running some of the subagents, then kill it outright.
    let onDoomed = 0;
    for (let attempt = 0; attempt < 300 && onDoomed === 0; attempt++) {
      const pending = (await handle.describe()).raw.pendingActivities ?? [];
      onDoomed = pending.filter(
        (activity) => activity.lastStartedTime && activity.lastWorkerIdentity?.startsWith(doomed.identity),
      ).length;
      if (onDoomed === 0) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(onDoomed).toBeGreaterThan(0);
    const exited = once(doomed.child, 'exit');
    doomed.child.kill('SIGKILL');
    expect((await exited)[1]).toBe('SIGKILL');

    const result = await crashClient.result(workflowId);
    expect(result.status).toBe('completed');
    const outIds = result.outputs.slow ?? [];
    expect(outIds).toHaveLength(INSTANCES);

    // Exactly one record per idempotency key, one per instance, each body whole.
    const { runId } = (await supervisor.store.stat({ outId: outIds[0] ?? '' })).producer;
    const ofRun = (await recordsOf(supervisor.store, 'slow')).filter(
      (record) => record.producer.runId === runId,
    );
    const keys = new Map<string, number>();
    for (const record of ofRun) keys.set(record.idempotencyKey, (keys.get(record.idempotencyKey) ?? 0) + 1);
    expect([...keys.values()].every((count) => count === 1)).toBe(true);
    expect(ofRun).toHaveLength(INSTANCES);
    expect(ofRun.map((record) => record.outId).sort()).toEqual([...outIds].sort());
    const hosts = new Set<string>();
    for (const [index, outId] of outIds.entries()) {
      const body = Buffer.from((await supervisor.store.get({ outId })).body).toString('utf8');
      const match = /^instance (\d+) on (host-[ab])\n(y*)$/.exec(body);
      expect(match?.[1]).toBe(String(index));
      expect(match?.[3]).toHaveLength(BODY_BYTES);
      hosts.add(match?.[2] ?? '');
    }
    // The killed worker finished nothing (it died within its subagents' first seconds): the
    // survivor ran every instance, including those retried after the kill.
    expect(hosts).toEqual(new Set(['host-b']));
  });
});
