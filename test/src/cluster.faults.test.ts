import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { ClusterTopology, freeClusterPorts } from '@wharf/cli/cluster';
import { encryptedDataConverter, parseKeyRing } from '@wharf/codec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterNotBuilt } from './cluster-binaries.js';
import { runWharf } from './wharf-cli.js';

// The compose topology as native processes (`wharf cluster up`): the real Temporal server on
// PostgreSQL, its Web UI, versitygw as S3, and two Wharf workers that share only PostgreSQL and S3.
// `wharf run --task-queue wharf --no-worker` from a third directory hands them a swarm.
// Payloads are encrypted (WHARF_CODEC_KEYS), so the cluster runs its codec server too, and the
// Web UI is pointed at it.
const execFileAsync = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
const notBuilt = clusterNotBuilt('cluster');

describe.skipIf(notBuilt !== undefined)('the compose topology, native (wharf cluster)', () => {
  let scratch: string;
  let cluster: ClusterTopology;
  let workflowId: string;
  const keys = { WHARF_CODEC_KEYS: `e2e1:${randomBytes(32).toString('base64')}` };

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'wharf-cluster-e2e-'));
    // Run as root, PostgreSQL runs as `postgres`, which must reach its folder inside.
    await chmod(scratch, 0o755);
    cluster = new ClusterTopology(
      { dir: join(scratch, 'cluster'), root, ports: await freeClusterPorts(), workers: 2 },
      { env: { ...process.env, ...keys }, onProgress: (line) => console.log(`[cluster] ${line}`) },
    );
    const started = Date.now();
    await cluster.up();
    console.log(`[cluster] cluster up in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }, 600_000);

  afterAll(async () => {
    await cluster?.down();
    await rm(scratch, { recursive: true, force: true });
  }, 180_000);

  it('runs a swarm handed over by `wharf run --no-worker` on both workers, on PostgreSQL', async () => {
    const { stdout: described } = await execFileAsync('temporal', [
      ...['operator', 'cluster', 'describe', '--address', cluster.temporalAddress, '-o', 'json'],
    ]);
    expect(JSON.parse(described).persistenceStore).toMatch(/^postgres/);

    const client = join(scratch, 'client');
    await mkdir(client);
    await writeFile(
      join(client, 'swarm.yaml'),
      "name: cluster-e2e\ntasks:\n  fan:\n    loop: { type: repeat, count: 12 }\n    script: { content: 'sleep 2; echo instance $WHARF_INSTANCE' }\n",
    );
    const env = { ...process.env, ...keys, ...cluster.clientEnvironment() };
    const run = await runWharf(
      ['run', 'swarm.yaml', '--task-queue', 'wharf', '--no-worker', '--json'],
      client,
      {
        env,
        timeoutMs: 240_000,
      },
    );
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as {
      workflowId: string;
      status: string;
      outputs: Record<string, string[]>;
    };
    expect(result.status).toBe('completed');
    expect(result.outputs.fan).toHaveLength(12);
    expect(run.stderr).toContain('no worker in this command');
    workflowId = result.workflowId;

    // Every workflow and activity task of the run (and its children) was taken by a cluster worker.
    const pids = await Promise.all(['wharf-worker-1', 'wharf-worker-2'].map((name) => cluster.pid(name)));
    const connection = await Connection.connect({ address: cluster.temporalAddress });
    try {
      // The memos the listing reads are encrypted too.
      const temporal = new Client({
        connection,
        dataConverter: encryptedDataConverter({ keyRing: parseKeyRing(keys.WHARF_CODEC_KEYS) }),
      });
      const activityIdentities = new Set<string>();
      const identities = new Set<string>();
      for await (const execution of temporal.workflow.list({
        query: `WorkflowId STARTS_WITH "${result.workflowId}"`,
      })) {
        const history = await temporal.workflow
          .getHandle(execution.workflowId, execution.runId)
          .fetchHistory();
        for (const event of history.events ?? []) {
          const activity = event.activityTaskStartedEventAttributes?.identity;
          const workflowTask = event.workflowTaskStartedEventAttributes?.identity;
          if (activity) activityIdentities.add(activity);
          for (const identity of [activity, workflowTask]) if (identity) identities.add(identity);
        }
      }
      const pidOf = (identity: string) => Number(identity.split('@')[0]);
      expect(
        [...identities].map(pidOf).every((pid) => pids.includes(pid)),
        [...identities].join(', '),
      ).toBe(true);
      expect(new Set([...activityIdentities].map(pidOf)).size, [...activityIdentities].join(', ')).toBe(2);
    } finally {
      await connection.close();
    }
  });

  it("points the Web UI at the codec server, which decodes the run's history for the UI's origin only", async () => {
    const codecUrl = cluster.codecUrl as string;
    expect(codecUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const uiPort = cluster.config.ports.ui;
    const settings = (await (await fetch(`http://127.0.0.1:${uiPort}/api/v1/settings`)).json()) as {
      Codec?: { Endpoint?: string };
    };
    expect(settings.Codec?.Endpoint).toBe(codecUrl);
    expect(cluster.clientEnvironment().TEMPORAL_CODEC_ENDPOINT).toBe(codecUrl);

    // The swarm's input as the Temporal server holds it: ciphertext under the cluster's key.
    const connection = await Connection.connect({ address: cluster.temporalAddress });
    let input: { metadata?: Record<string, Uint8Array> | null; data?: Uint8Array | null } | undefined;
    try {
      const history = await new Client({ connection }).workflow.getHandle(workflowId).fetchHistory();
      input = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
    } finally {
      await connection.close();
    }
    const text = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? []).toString();
    expect(text(input?.metadata?.encoding)).toBe('binary/encrypted');
    expect(text(input?.metadata?.['encryption-key-id'])).toBe('e2e1');
    expect(text(input?.data)).not.toContain('echo instance');
    const body = JSON.stringify({
      payloads: [
        {
          metadata: Object.fromEntries(
            Object.entries(input?.metadata ?? {}).map(([key, value]) => [
              key,
              Buffer.from(value).toString('base64'),
            ]),
          ),
          data: Buffer.from(input?.data ?? []).toString('base64'),
        },
      ],
    });
    const decode = (origin: string) =>
      fetch(`${codecUrl}/default/decode`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Origin: origin, 'X-Namespace': 'default' },
        body,
      });
    const uiOrigin = `http://localhost:${uiPort}`;
    const preflight = await fetch(`${codecUrl}/default/decode`, {
      method: 'OPTIONS',
      headers: { Origin: uiOrigin, 'Access-Control-Request-Method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(uiOrigin);
    const decoded = await decode(uiOrigin);
    expect(decoded.status).toBe(200);
    expect(decoded.headers.get('access-control-allow-origin')).toBe(uiOrigin);
    const [payload] = (
      (await decoded.json()) as { payloads: { metadata: Record<string, string>; data: string }[] }
    ).payloads;
    expect(Buffer.from(payload?.metadata.encoding ?? '', 'base64').toString()).toBe('json/plain');
    expect(Buffer.from(payload?.data ?? '', 'base64').toString()).toContain('echo instance $WHARF_INSTANCE');
    const refused = await decode('http://attacker.example');
    expect(refused.status).toBe(403);
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('stops, kills and starts each process by name, and reports it', async () => {
    await cluster.kill('wharf-worker-2');
    await cluster.stop('temporal-ui');
    const states = Object.fromEntries((await cluster.status()).map((state) => [state.name, state.running]));
    expect(states).toMatchObject({
      'wharf-worker-2': false,
      'temporal-ui': false,
      temporal: true,
      postgresql: true,
    });
    await cluster.start('temporal-ui');
    await cluster.start('wharf-worker-2');
    expect((await cluster.status()).every((state) => state.running)).toBe(true);
  });
});
