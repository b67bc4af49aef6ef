import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, statfs, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Connection } from '@temporalio/client';
import { ClusterTopology, findClusterBinaries, freeClusterPorts, type ProcessEnv } from '@wharf/cli/cluster';
import type { SwarmResult } from '@wharf/orchestrator';
import { WharfClient } from '@wharf/orchestrator/client';
import { createWharfDataConverter } from '@wharf/orchestrator/node';
import type { OutputRecord } from '@wharf/output-store';
import { type DataPlane, openDataPlane } from '@wharf/output-store/config';
import { type ProviderServer, sentTurn, startProviderServer } from '@wharf/runtime/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterNotBuilt } from './cluster-binaries.js';
import { startTcpProxy, type TcpProxy } from './servers/tcp-proxy.js';
import { runWharf, type SpawnedWharf, spawnWharf } from './wharf-cli.js';

// Infrastructure faults on the compose topology run natively (`wharf cluster`), one after another
// during ONE swarm: a map of ITEMS scripts whose stdout is over the store's 64 KiB inline limit
// (so every body goes to S3 and its record to PostgreSQL), an agent task whose model is the local
// provider server (over HTTP, from the cluster's workers), and an approval gate. Worker 2 reaches
// PostgreSQL, S3 and Temporal through TCP proxies the test can cut; worker 1's spill folder is a
// small tmpfs the test can fill. After each fault: the swarm goes on, a subagent completes within
// 60 s of the fault's end (its recovery time is printed), and while it lasts `wharf status` says
// what is wrong instead of hanging. At the end: the swarm completed, every item's output is stored
// exactly once, no orphan body is left, the gate was answered once.
const execFileAsync = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
/** Items of the map (WHARF_FAULTS_ITEMS overrides it, for a quicker local run). */
const ITEMS = Number(process.env.WHARF_FAULTS_ITEMS || 2_000);
/** Each item's stdout: over the store's inline limit (64 KiB), so its body goes to S3. */
const ITEM_BYTES = 70_000;
/** Seconds each item sleeps: what spreads the map over the faults. */
const ITEM_SLEEP = 0.1;
const CONCURRENCY = 16;
/** Seconds an item sleeps that starts while the Temporal cut is prepared. */
const SLOW_SLEEP = 45;
/** runSubagent's heartbeat timeout (swarm-activities.ts). */
const HEARTBEAT_TIMEOUT_MS = 20_000;
const OUTAGE_MS = 20_000;
const TEMPORAL_CUT_MS = 60_000;
/** How long after a fault's end the first subagent must complete. */
const RECOVERY_LIMIT_MS = 60_000;

const notBuilt = clusterNotBuilt('faults');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** What one fault left, for the summary. */
interface FaultRecord {
  name: string;
  recoveryMs: number;
}

describe.skipIf(notBuilt !== undefined)('infrastructure faults on the native cluster', () => {
  let scratch: string;
  let cluster: ClusterTopology;
  let provider: ProviderServer;
  let plane: DataPlane;
  let connection: Connection;
  let wharf: WharfClient;
  let clientEnv: NodeJS.ProcessEnv;
  let clientDir: string;
  let run: SpawnedWharf;
  let workflowId: string;
  /** In front of PostgreSQL and S3 (for every user of the data plane), and of Temporal (for worker 2). */
  const proxies: Record<'postgres' | 's3' | 'temporal', TcpProxy | undefined> = {
    postgres: undefined,
    s3: undefined,
    temporal: undefined,
  };
  /** Worker 1's spill folder, a tmpfs when mounting works here. */
  let spool: string | undefined;
  const faults: FaultRecord[] = [];
  /** The last count of stored items seen. */
  let lastDone = 0;
  /** Worker 2's long scripts still running once its activities timed out. */
  let stillRunning = -1;

  /** Pids of the processes under `name` (its scripts, in their sandboxes) whose command line is `needle`. */
  async function scriptsOf(name: string, needle: string): Promise<number[]> {
    const root = await cluster.pid(name);
    if (root === undefined) return [];
    const { stdout } = await execFileAsync('ps', ['-eo', 'pid=,ppid=,args=']);
    const rows = stdout
      .trim()
      .split('\n')
      .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
      .filter((match) => match !== null)
      .map((match) => ({ pid: Number(match[1]), ppid: Number(match[2]), args: match[3] ?? '' }));
    const under = new Set([root]);
    for (let grown = true; grown; ) {
      grown = false;
      for (const row of rows)
        if (under.has(row.ppid) && !under.has(row.pid)) {
          under.add(row.pid);
          grown = true;
        }
    }
    return rows.filter((row) => under.has(row.pid) && row.args === needle).map((row) => row.pid);
  }

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'wharf-faults-'));
    await chmod(scratch, 0o755);
    provider = await startProviderServer((request) =>
      sentTurn(request).toolResults.size === 0
        ? { toolCalls: [{ name: 'shell', input: { command: 'echo checked' } }] }
        : { text: 'All checked.' },
    );
    const ports = await freeClusterPorts();
    proxies.postgres = await startTcpProxy(`127.0.0.1:${ports.postgres}`);
    proxies.s3 = await startTcpProxy(`127.0.0.1:${ports.s3}`);
    proxies.temporal = await startTcpProxy(`127.0.0.1:${ports.temporal}`);
    const dir = join(scratch, 'cluster');
    const swap = (value: string | undefined, port: number, proxy: TcpProxy | undefined) =>
      (value ?? '').replaceAll(`127.0.0.1:${port}`, proxy?.address ?? '');
    // Every user of the data plane names it by one URL (its identity): the proxies' for all of
    // them, which cut off worker 2 alone. Worker 2 alone reaches Temporal through a proxy.
    const throughProxies = (env: ProcessEnv): ProcessEnv => ({
      ...env,
      WHARF_STORE: swap(env.WHARF_STORE, ports.postgres, proxies.postgres),
      WHARF_BLOBS: swap(env.WHARF_BLOBS, ports.s3, proxies.s3),
    });
    const workerEnvironment = (n: number, env: ProcessEnv): ProcessEnv =>
      n === 2
        ? {
            ...throughProxies(env),
            TEMPORAL_ADDRESS: swap(env.TEMPORAL_ADDRESS, ports.temporal, proxies.temporal),
          }
        : throughProxies(env);
    cluster = new ClusterTopology(
      { dir, root, ports, workers: 2 },
      {
        env: { ...process.env, OPENAI_COMPATIBLE_API_KEY: 'local-key' },
        onProgress: (line) => console.log(`[faults] ${line}`),
        workerEnvironment,
      },
    );
    // Worker 1's spill folder on a 16 MiB tmpfs, filled by the spool fault.
    const work = join(dir, 'wharf-worker-1', 'home', 'data', 'work');
    await mkdir(work, { recursive: true });
    try {
      await execFileAsync('mount', ['-t', 'tmpfs', '-o', 'size=16m,mode=0700', 'tmpfs', work]);
      spool = work;
    } catch (error) {
      console.warn(`[faults] no tmpfs for the spool fault (${(error as Error).message.trim()})`);
    }
    const started = Date.now();
    await cluster.up();
    console.log(`[faults] cluster up in ${seconds(Date.now() - started)}`);

    clientEnv = {
      ...process.env,
      ...throughProxies(cluster.clientEnvironment()),
      OPENAI_COMPATIBLE_API_KEY: 'local-key',
    };
    plane = await openDataPlane({
      store: clientEnv.WHARF_STORE as string,
      blobs: clientEnv.WHARF_BLOBS as string,
      env: clientEnv,
    });
    connection = await Connection.connect({ address: cluster.temporalAddress });
    wharf = new WharfClient({
      connection,
      taskQueue: 'wharf',
      dataConverter: createWharfDataConverter({ store: plane.store }),
    });
    clientDir = join(scratch, 'client');
    await mkdir(clientDir);
  }, 600_000);

  afterAll(async () => {
    if (faults.length > 0) {
      console.log('[faults] recovery times (fault over → first completed subagent):');
      for (const fault of faults)
        console.log(`[faults]   ${fault.name.padEnd(44)} ${seconds(fault.recoveryMs).padStart(8)}`);
    }
    run?.child.kill('SIGKILL');
    await connection?.close().catch(() => {});
    await plane?.close().catch(() => {});
    await cluster?.down().catch((error: unknown) => console.warn(`[faults] down: ${String(error)}`));
    if (spool !== undefined) await execFileAsync('umount', ['-l', spool]).catch(() => {});
    for (const proxy of Object.values(proxies)) await proxy?.close();
    await provider?.stop();
    await rm(scratch, { recursive: true, force: true });
  }, 180_000);

  /**
   * How many of the map's items have their stdout stored (read from PostgreSQL with psql), or
   * undefined while PostgreSQL does not answer. The swarm's progress counts a step's instances
   * once the step folds, so a subagent's completion is seen here first: its output is stored.
   */
  async function instancesDone(): Promise<number | undefined> {
    const store = new URL(clientEnv.WHARF_STORE as string);
    try {
      const { stdout } = await execFileAsync(
        join(findClusterBinaries(process.env).postgresBindir, 'psql'),
        [
          ...['-h', store.hostname, '-p', store.port, '-U', decodeURIComponent(store.username)],
          ...['-d', store.pathname.slice(1), '-tA', '-c'],
          `SELECT count(*) FROM wharf.outputs WHERE run_id = '${workflowId}' AND labels->>'task' = 'fan' AND labels->>'stream' = 'stdout'`,
        ],
        {
          env: { ...process.env, PGPASSWORD: decodeURIComponent(store.password), PGCONNECT_TIMEOUT: '3' },
          timeout: 10_000,
        },
      );
      return Number(stdout.trim());
    } catch {
      return undefined;
    }
  }

  /** Waits until the map has done more than `before` instances; returns when. */
  async function nextCompletion(before: number, limitMs: number): Promise<number> {
    const deadline = Date.now() + limitMs;
    while (Date.now() < deadline) {
      const done = await instancesDone();
      if (done !== undefined && done > before) {
        lastDone = done;
        return Date.now();
      }
      await sleep(250);
    }
    throw new Error(`no subagent completed within ${seconds(limitMs)} (still ${before} done)`);
  }

  /** `wharf status <run>` as a user would run it during a fault: it must end, saying something. */
  async function statusDuring(): Promise<string> {
    const started = Date.now();
    const status = await runWharf(['status', workflowId], clientDir, { env: clientEnv, timeoutMs: 60_000 });
    const text = `${status.stdout}\n${status.stderr}`.trim();
    console.log(
      `[faults] wharf status (exit ${status.code}, ${seconds(Date.now() - started)}):\n${text
        .split('\n')
        .slice(0, 12)
        .map((line) => `    ${line}`)
        .join('\n')}`,
    );
    expect(Date.now() - started).toBeLessThan(45_000);
    return text;
  }

  /**
   * One fault: `inject` breaks something, `during` runs while it lasts (checks of what users see),
   * `end` mends it; then the first subagent must complete within 60 s. Records the recovery time.
   */
  async function fault(
    name: string,
    steps: { inject: () => Promise<void>; during?: () => Promise<void>; end: () => Promise<void> },
  ): Promise<void> {
    const before = (await instancesDone()) ?? lastDone;
    lastDone = before;
    expect(before, `the map ran out of items before "${name}": make it longer`).toBeLessThan(ITEMS - 50);
    console.log(`[faults] ${name}: start (${before}/${ITEMS} items done)`);
    await steps.inject();
    await steps.during?.();
    await steps.end();
    const over = Date.now();
    const at = await nextCompletion(lastDone, RECOVERY_LIMIT_MS);
    const recoveryMs = at - over;
    faults.push({ name, recoveryMs });
    console.log(`[faults] RECOVERY ${name}: ${seconds(recoveryMs)} (fault over → first completed subagent)`);
    expect(recoveryMs).toBeLessThan(RECOVERY_LIMIT_MS);
  }

  it('starts the swarm on the cluster: a map over the inline limit, an agent, an approval gate', async () => {
    await writeFile(
      join(clientDir, 'swarm.yaml'),
      [
        'name: faults',
        'agents:',
        `  checker: { model: "openai-compatible:${provider.url}/v1:fault-model", system: You check., tools: [shell], max_steps: 4 }`,
        'tasks:',
        `  list: { script: { content: 'seq 0 ${ITEMS - 1}' }, output: †data.list }`,
        '  fan:',
        '    depends_on: [list]',
        '    loop: { type: map, over: †data.list }',
        // An item that starts while the workdir holds `slow` runs 45 s: long enough to be cut off.
        `    script: { content: 's=${ITEM_SLEEP}; [ -e slow ] && s=${SLOW_SLEEP}; sleep $s; yes "item $WHARF_INSTANCE" | head -c ${ITEM_BYTES}' }`,
        '  gate:',
        '    approval: { prompt: Carry on? }',
        '    script: { content: echo gate passed }',
        '  check:',
        '    depends_on: [gate]',
        '    agent: checker',
        '    prompt: Check the fan-out.',
        '',
      ].join('\n'),
    );
    run = spawnWharf(
      [
        ...['run', 'swarm.yaml', '--task-queue', 'wharf', '--no-worker', '--follow'],
        ...['--concurrency', String(CONCURRENCY)],
      ],
      clientDir,
      { env: clientEnv },
    );
    const started = await run.waitFor(/wharf: started (\S+)/);
    workflowId = started[1] as string;
    console.log(`[faults] swarm ${workflowId} started`);
    await nextCompletion(0, 120_000);
  }, 180_000);

  it('survives the Temporal server SIGKILLed and started again, and answers the gate once after', async () => {
    await fault('Temporal server SIGKILL + start', {
      inject: () => cluster.kill('temporal'),
      during: async () => {
        expect(await statusDuring()).toMatch(/no Temporal server at 127\.0\.0\.1:\d+/);
        // `--follow` says it too while the server is down (a read that fails, or one that goes
        // unanswered for 3 s): the server stays down until it has.
        const said = await Promise.race([
          run.waitFor(/wharf: (cannot read progress|the Temporal server at \S+ does not answer)[^\n]*/),
          sleep(30_000).then(() => undefined),
        ]);
        console.log(`[faults] wharf run --follow said: ${said?.[0] ?? 'nothing within 30 s'}`);
        expect(said, 'wharf run --follow said nothing while the Temporal server was down').toBeDefined();
      },
      end: () => cluster.start('temporal'),
    });
    const gates = await wharf.pendingApprovals(workflowId);
    expect(gates.map((gate) => gate.task)).toEqual(['gate']);
    await wharf.approveTask(workflowId, 'gate', { approve: true, by: 'faults' });
    await expect(wharf.approveTask(workflowId, 'gate', { approve: true })).rejects.toThrow(/already/);
  }, 240_000);

  it('survives PostgreSQL stopped for 20 s (Temporal and the store down together)', async () => {
    await fault('PostgreSQL stopped 20 s', {
      inject: () => cluster.stop('postgresql'),
      during: async () => {
        await sleep(OUTAGE_MS / 2);
        expect(await statusDuring()).toMatch(/cannot use PostgreSQL server \S+: no server answers/);
        await sleep(OUTAGE_MS / 2);
      },
      end: () => cluster.start('postgresql'),
    });
  }, 240_000);

  it('survives the S3 service stopped for 20 s', async () => {
    await fault('S3 service stopped 20 s', {
      inject: () => cluster.stop('s3'),
      during: async () => {
        await sleep(OUTAGE_MS / 2);
        expect(await statusDuring()).toMatch(/cannot use s3:\/\/\S+ at \S+: no server answers/);
        await sleep(OUTAGE_MS / 2);
      },
      end: () => cluster.start('s3'),
    });
  }, 240_000);

  it('survives one worker SIGKILLed while the other finishes its work', async () => {
    await fault('worker 1 SIGKILL (worker 2 carries on)', {
      inject: () => cluster.kill('wharf-worker-1'),
      during: async () => {
        // The other worker alone completes subagents meanwhile.
        await nextCompletion(lastDone, RECOVERY_LIMIT_MS);
      },
      end: () => cluster.start('wharf-worker-1'),
    });
  }, 240_000);

  it('survives one worker cut off from PostgreSQL and S3 for 20 s while it reaches Temporal', async () => {
    await fault('worker 2 cut from PostgreSQL + S3 20 s', {
      inject: async () => {
        const worker2 = { pids: async () => [(await cluster.pid('wharf-worker-2')) ?? -1] };
        await proxies.postgres?.cut(worker2);
        await proxies.s3?.cut(worker2);
      },
      during: async () => {
        await sleep(OUTAGE_MS / 2);
        // Worker 2's attempts fail and wait for their retries: status names the failures.
        expect(await statusDuring()).toMatch(
          /Retrying \(\d+\):\n\s+\d+ activit(y|ies) retrying \(attempt \d+; runSubagent\): /,
        );
        await sleep(OUTAGE_MS / 2);
      },
      end: async () => {
        proxies.postgres?.restore();
        proxies.s3?.restore();
      },
    });
  }, 240_000);

  it('survives one worker cut off from Temporal for 60 s: its scripts run on the other', async () => {
    // Items started now run 45 s: some are running on worker 2 when it is cut off.
    const slow = join(clientDir, 'slow');
    await writeFile(slow, '');
    let onWorker2: number[] = [];
    // Up to a minute: on a loaded machine, or with slots still held by the last fault's retries,
    // worker 2 may start nothing for a while.
    for (let wait = 0; wait < 120 && onWorker2.length === 0; wait++) {
      await sleep(500);
      onWorker2 = await scriptsOf('wharf-worker-2', `sleep ${SLOW_SLEEP}`);
    }
    await rm(slow);
    console.log(`[faults] ${onWorker2.length} long scripts run on worker 2 as it is cut off from Temporal`);
    expect(onWorker2.length).toBeGreaterThan(0);
    await fault('worker 2 cut from Temporal 60 s', {
      inject: async () => proxies.temporal?.cut(),
      during: async () => {
        const cutAt = Date.now();
        // Worker 1 carries the map meanwhile.
        await nextCompletion(lastDone, RECOVERY_LIMIT_MS);
        await sleep(Math.max(0, cutAt + HEARTBEAT_TIMEOUT_MS + 10_000 - Date.now()));
        // The server timed its activities out and gave them to worker 1: no copy runs beside.
        const left = await scriptsOf('wharf-worker-2', `sleep ${SLOW_SLEEP}`);
        console.log(
          `[faults] ${seconds(Date.now() - cutAt)} into the cut, ${left.length} of worker 2's long scripts still run`,
        );
        stillRunning = left.length;
        await statusDuring();
        await sleep(Math.max(0, cutAt + TEMPORAL_CUT_MS - Date.now()));
      },
      end: async () => proxies.temporal?.restore(),
    });
    expect(stillRunning, "worker 2's scripts ran on beside their retries on worker 1").toBe(0);
  }, 300_000);

  it.skipIf(process.getuid?.() !== 0)(
    "survives a worker's spill folder full during captures",
    async () => {
      if (spool === undefined) return;
      const filler = join(spool, 'filler');
      await fault('worker 1 spill folder full 20 s', {
        inject: async () => {
          const { bavail, bsize } = await statfs(spool as string);
          await writeFile(filler, Buffer.alloc(Number(bavail) * Number(bsize))).catch(() => {});
        },
        during: async () => {
          await sleep(OUTAGE_MS);
        },
        end: () => rm(filler, { force: true }),
      });
    },
    240_000,
  );

  it('completes the swarm with every output stored exactly once and no orphan body', async () => {
    const ended = await run.exited;
    const { stdout, stderr } = run.output();
    expect(ended.code, `${stdout.slice(-4_000)}\n${stderr.slice(-4_000)}`).toBe(0);
    expect(stdout).toContain(`Swarm faults: completed (${workflowId})`);
    // `--follow` said which activities were retrying, and why (the server's outage: checked above).
    expect(stderr).toMatch(/wharf: \d+ activit(y|ies) retrying \(attempt \d+; runSubagent\): /);
    const result: SwarmResult = await wharf.result(workflowId);
    expect(result.status).toBe('completed');
    const fan = result.tasks.find((task) => task.task === 'fan');
    expect(fan?.status).toBe('done');
    expect(fan?.instances).toMatchObject({ done: ITEMS, total: ITEMS });
    const gate = result.tasks.find((task) => task.task === 'gate');
    expect(gate).toMatchObject({ status: 'done', approval: { decision: 'approved', by: 'faults' } });
    expect(result.tasks.find((task) => task.task === 'check')?.status).toBe('done');

    // Every item's stdout stored exactly once (PostgreSQL's records, S3's bodies).
    const byInstance = new Map<string, OutputRecord[]>();
    let cursor: string | undefined;
    do {
      const page = await plane.store.list({
        runId: workflowId,
        labels: { task: 'fan', stream: 'stdout' },
        limit: 1_000,
        ...(cursor === undefined ? {} : { cursor }),
      });
      for (const record of page.records) {
        const instance = record.labels.instance ?? '';
        byInstance.set(instance, [...(byInstance.get(instance) ?? []), record]);
      }
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    const twice = [...byInstance].filter(([, records]) => records.length > 1).map(([instance]) => instance);
    console.log(
      `[faults] ${byInstance.size} of ${ITEMS} items stored; stored more than once: ${twice.length}`,
    );
    expect(twice).toEqual([]);
    expect(byInstance.size).toBe(ITEMS);
    for (const [instance, records] of byInstance) expect(records[0]?.sizeBytes, instance).toBe(ITEM_BYTES);
    // A sample of bodies read back whole from S3.
    for (const index of [0, Math.floor(ITEMS / 3), Math.floor(ITEMS / 2), ITEMS - 1]) {
      const record = byInstance.get(String(index))?.[0] as OutputRecord;
      const body = Buffer.from((await plane.store.get({ outId: record.outId })).body).toString('utf8');
      expect(body.startsWith(`item ${index}\n`)).toBe(true);
      expect(body).toHaveLength(ITEM_BYTES);
    }
    // No body in S3 that no record names.
    const orphans = await plane.store.sweepOrphanBodies?.({ graceMs: 0, dryRun: true });
    expect(orphans).toBeDefined();
    expect(orphans?.removed).toBe(0);
    // The gate ran once; the agent's model was called once per step.
    const gateOut = await plane.store.list({ runId: workflowId, labels: { task: 'gate' } });
    expect(gateOut.records.filter((record) => record.labels.stream === 'stdout')).toHaveLength(1);
    const steps = provider.requests.map((request) => sentTurn(request).toolResults.size);
    expect(steps).toEqual([0, 1]);
  }, 600_000);
});
