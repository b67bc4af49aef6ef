import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import {
  type ClusterConfig,
  ClusterTopology,
  freeClusterPorts,
  serviceEnvironments,
  workerEnvironment,
  workerHome,
} from '@wharf/cli/cluster';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterNotBuilt } from './cluster-binaries.js';
import { runWharf, startWharf } from './wharf-cli.js';

// A rolling upgrade of the native cluster's workers while a swarm runs, through Worker
// Versioning, by the procedure docs/cluster.md gives ("Shipping a workflow change"):
//   1. the cluster runs build A (its workers' build id derived from the workflow code);
//   2. a swarm starts on A: a map of scripts, then an approval gate (the map's first scripts wait
//      for a file the test writes once B is current, so the switch and the drains meet it mid-map);
//   3. build B's workers start beside A's: the same worker process, with workflow code that makes
//      one more command (test/fixtures/upgraded-workflows.mjs), so a run of A's replayed on B
//      would fail; they poll, and `deploy/wharf-version.sh` makes B current;
//   4. a second swarm starts: on B;
//   5. A's workers get SIGTERM one at a time (each drains its running scripts), the last one
//      once `temporal worker deployment describe-version` reports A drained, which it does once
//      the first swarm, pinned to A, has finished there.
const execFileAsync = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
const upgradedWorker = fileURLToPath(new URL('../fixtures/upgraded-worker.mjs', import.meta.url));
const ITEMS = 200;
const B_ITEMS = 12;
const B_BUILD = 'upgrade-b';

const notBuilt = clusterNotBuilt('cluster upgrade');

const log = (line: string) => console.log(`[cluster upgrade] ${line}`);

/** What `wharf run --json` prints, as far as this test reads it. */
interface SwarmJson {
  workflowId: string;
  status: string;
  outputs: Record<string, string[]>;
  tasks: { task: string; status: string; manifest?: string }[];
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

describe.skipIf(notBuilt !== undefined)(
  'a rolling upgrade of the cluster workers (Worker Versioning)',
  () => {
    let scratch: string;
    /** Outside /tmp, which the scripts' sandbox replaces with its own: the map waits for `release` here. */
    let gate: string;
    let cluster: ClusterTopology;
    let connection: Connection;
    let temporalClient: Client;
    const upgraded: ChildProcess[] = [];

    beforeAll(async () => {
      scratch = await mkdtemp(join(tmpdir(), 'wharf-cluster-upgrade-'));
      gate = await mkdtemp('/var/tmp/wharf-cluster-upgrade-');
      await chmod(gate, 0o755);
      // Run as root, PostgreSQL runs as `postgres`, which must reach its folder inside.
      await chmod(scratch, 0o755);
      cluster = new ClusterTopology(
        { dir: join(scratch, 'cluster'), root, ports: await freeClusterPorts(4), workers: 2 },
        { onProgress: log },
      );
      const started = Date.now();
      await cluster.up();
      log(`cluster up in ${seconds(Date.now() - started)}`);
      connection = await Connection.connect({ address: cluster.temporalAddress });
      temporalClient = new Client({ connection });
    }, 600_000);

    afterAll(async () => {
      for (const child of upgraded) child.kill('SIGTERM');
      await Promise.all(
        upgraded.map((child) =>
          child.exitCode === null ? new Promise((resolve) => child.once('exit', resolve)) : undefined,
        ),
      );
      await connection?.close();
      await cluster?.down();
      await rm(scratch, { recursive: true, force: true });
      if (gate !== undefined) await rm(gate, { recursive: true, force: true });
    }, 180_000);

    /**
     * `temporal worker deployment describe-version` of `buildId`: whether it is current (its
     * `currentSinceTime` is set) and its drainage status (`drainageInfo.drainageStatus`).
     */
    async function describeVersion(buildId: string) {
      const { stdout } = await execFileAsync('temporal', [
        ...['worker', 'deployment', 'describe-version', '--deployment-name', 'wharf', '--build-id', buildId],
        ...['--address', cluster.temporalAddress, '-o', 'json'],
      ]);
      const described = JSON.parse(stdout) as {
        currentSinceTime?: string;
        drainageInfo?: { drainageStatus?: string };
      };
      const since = Date.parse(described.currentSinceTime ?? '');
      return {
        current: Number.isFinite(since) && since > 0,
        drainage: described.drainageInfo?.drainageStatus ?? '',
        text: stdout,
      };
    }

    /** Starts build B's worker `n` (3, 4: beside A's 1 and 2) as the cluster starts its own: a host of its own. */
    async function startUpgradedWorker(config: ClusterConfig, n: number): Promise<ChildProcess> {
      const home = workerHome(config, n);
      for (const folder of ['data', 'tmp']) await mkdir(join(home, folder), { recursive: true });
      const output = await open(join(config.dir, `wharf-worker-${n}.log`), 'a');
      const env: Record<string, string> = {};
      for (const name of ['PATH', 'LANG', 'LC_ALL', 'TZ'])
        if (process.env[name]) env[name] = process.env[name];
      const child = spawn(process.execPath, [upgradedWorker], {
        cwd: home,
        env: {
          ...env,
          ...workerEnvironment({ ...config, version: { deploymentName: 'wharf', buildId: B_BUILD } }, {}, n),
        },
        stdio: ['ignore', output.fd, output.fd],
      });
      await output.close();
      upgraded.push(child);
      const health = `http://127.0.0.1:${config.ports.workerHealth + n - 1}/healthz`;
      const deadline = Date.now() + 120_000;
      for (;;) {
        if (child.exitCode !== null)
          throw new Error(`build B worker ${n} exited (${child.exitCode}); see its log`);
        if (
          await fetch(health, { signal: AbortSignal.timeout(2_000) }).then(
            (r) => r.ok,
            () => false,
          )
        )
          return child;
        if (Date.now() > deadline) throw new Error(`build B worker ${n} did not answer at ${health}`);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }

    /** Every run of a swarm (its continue-as-new runs) and of its children, with their histories. */
    async function histories(workflowId: string) {
      const runs: {
        workflowId: string;
        memo: Record<string, unknown> | undefined;
        events: temporal.api.history.v1.IHistoryEvent[];
      }[] = [];
      for await (const execution of temporalClient.workflow.list({
        query: `WorkflowId STARTS_WITH "${workflowId}"`,
      })) {
        const handle = temporalClient.workflow.getHandle(execution.workflowId, execution.runId);
        const history = await handle.fetchHistory();
        runs.push({
          workflowId: execution.workflowId,
          memo: (await handle.describe()).memo,
          events: history.events ?? [],
        });
      }
      return runs;
    }

    const buildIdsOf = (runs: Awaited<ReturnType<typeof histories>>) =>
      new Set(
        runs.flatMap((run) =>
          run.events.flatMap((event) => {
            const completed = event.workflowTaskCompletedEventAttributes;
            return completed ? [completed.deploymentVersion?.buildId ?? '(unversioned)'] : [];
          }),
        ),
      );

    const pidsOf = (runs: Awaited<ReturnType<typeof histories>>) =>
      new Set(
        runs.flatMap((run) =>
          run.events.flatMap((event) => {
            const identity = event.activityTaskStartedEventAttributes?.identity;
            return identity ? [Number(identity.split('@')[0])] : [];
          }),
        ),
      );

    it('finishes the running swarm on build A, runs the next on build B, stores each output once and answers the gate once', async () => {
      const config = cluster.config;
      const buildA = config.version?.buildId;
      expect(buildA).toMatch(/^\d+\.\d+\.\d+.*-[0-9a-f]{12}$/);
      log(`build A: wharf:${buildA}`);
      const aPids = await Promise.all(['wharf-worker-1', 'wharf-worker-2'].map((name) => cluster.pid(name)));
      // A worker answers its health check before its first poll reaches the server: read the
      // pollers until both are among them (a fast machine asks in between).
      let versions = await cluster.workerVersions();
      for (let tries = 0; tries < 150 && aPids.some((pid) => !versions.has(pid as number)); tries++) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        versions = await cluster.workerVersions();
      }
      for (const pid of aPids) expect(versions.get(pid as number)).toBe(`wharf:${buildA}`);
      expect((await describeVersion(buildA as string)).current).toBe(true);

      const client = join(scratch, 'client');
      await mkdir(client);
      await writeFile(
        join(client, 'swarm-a.yaml'),
        [
          'name: upgrade-a',
          'tasks:',
          '  fan:',
          `    loop: { type: repeat, count: ${ITEMS} }`,
          // The first scripts wait until B is current, so the switch and the drains meet a map in flight.
          `    script: { content: 'while [ ! -e ${gate}/release ]; do sleep 0.2; done; sleep 1; echo item $WHARF_INSTANCE' }`,
          '  ship:',
          '    depends_on: [fan]',
          '    approval: { prompt: Ship the upgrade? }',
          "    script: { content: 'echo shipped' }",
          '',
        ].join('\n'),
      );
      await writeFile(
        join(client, 'swarm-b.yaml'),
        `name: upgrade-b\ntasks:\n  fan:\n    loop: { type: repeat, count: ${B_ITEMS} }\n    script: { content: 'echo item $WHARF_INSTANCE' }\n`,
      );
      const env = { ...process.env, ...cluster.clientEnvironment() };
      const wharfRun = (file: string) =>
        startWharf(['run', file, '--task-queue', 'wharf', '--no-worker', '--json'], client, {
          env,
          timeoutMs: 600_000,
        });

      // 2. The first swarm, on A, well into its map.
      const runA = wharfRun('swarm-a.yaml');
      let swarmA: string | undefined;
      while (swarmA === undefined) {
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        for await (const execution of temporalClient.workflow.list({
          query: 'WorkflowType = "swarmWorkflow"',
        }))
          swarmA = execution.workflowId;
      }
      /** The map's scripts (`runSubagent` activities) scheduled and completed so far. */
      const scripts = async () => {
        let scheduled = 0;
        let completed = 0;
        for (const run of await histories(swarmA as string)) {
          const ids = new Set<string>();
          for (const event of run.events) {
            if (event.activityTaskScheduledEventAttributes?.activityType?.name === 'runSubagent') {
              scheduled++;
              ids.add(String(event.eventId));
            }
            const done = event.activityTaskCompletedEventAttributes;
            if (done && ids.has(String(done.scheduledEventId))) completed++;
          }
        }
        return { scheduled, completed };
      };
      const scriptsDone = async () => (await scripts()).completed;
      const scriptsStarted = async () => (await scripts()).scheduled;
      while ((await scriptsStarted()) < 16) await new Promise((resolve) => setTimeout(resolve, 1_000));

      // 3. Build B beside A; once its workers poll, it becomes current.
      const upgradeStarted = Date.now();
      await Promise.all([startUpgradedWorker(config, 3), startUpgradedWorker(config, 4)]);
      const bPids = upgraded.map((child) => child.pid as number);
      await execFileAsync('sh', [join(root, 'deploy', 'wharf-version.sh')], {
        env: {
          ...env,
          ...serviceEnvironments({ ...config, version: { deploymentName: 'wharf', buildId: B_BUILD } }, {})[
            'wharf-version'
          ],
        },
        timeout: 180_000,
      });
      const switched = Date.now();
      log(
        `build B current ${seconds(switched - upgradeStarted)} after its workers started; ${await scriptsDone()} of A's scripts done`,
      );
      expect((await describeVersion(B_BUILD)).current).toBe(true);
      expect((await describeVersion(buildA as string)).current).toBe(false);
      expect(await scriptsDone()).toBe(0);
      await writeFile(join(gate, 'release'), '');

      // 4. A swarm started now runs on B.
      const runB = wharfRun('swarm-b.yaml');

      // 5. A's workers, one at a time: the first at once (it drains its running scripts), the last
      // once A is drained. Meanwhile the first swarm reaches its gate, answered once.
      let stopped = Date.now();
      await cluster.stop('wharf-worker-1');
      log(`wharf-worker-1 (A) drained and stopped ${seconds(Date.now() - stopped)} after SIGTERM`);
      for (;;) {
        const memo = (await temporalClient.workflow.getHandle(swarmA).describe()).memo;
        if ((memo?.pendingApprovals as string[] | undefined)?.includes('ship')) break;
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
      const approved = await runWharf(['approve', swarmA, 'ship', '--comment', 'ship it'], client, { env });
      expect(approved.code, approved.stderr).toBe(0);
      let drained: number | undefined;
      while (drained === undefined) {
        const described = await describeVersion(buildA as string);
        if (/^drained$/i.test(described.drainage)) {
          drained = Date.now();
          log(`describe-version A: ${described.text.replace(/\s+/g, ' ')}`);
        } else await new Promise((resolve) => setTimeout(resolve, 2_000));
        expect(Date.now() - switched, 'A never reported drained').toBeLessThan(480_000);
      }
      stopped = Date.now();
      await cluster.stop('wharf-worker-2');
      const finished = Date.now();
      log(
        `A drained ${seconds(drained - switched)} after B became current; wharf-worker-2 (A) stopped ${seconds(finished - stopped)} after SIGTERM; upgrade took ${seconds(finished - upgradeStarted)}`,
      );

      const [a, b] = await Promise.all([runA.done, runB.done]);
      expect(a.code, a.stderr).toBe(0);
      expect(b.code, b.stderr).toBe(0);
      const resultA = JSON.parse(a.stdout) as SwarmJson;
      const resultB = JSON.parse(b.stdout) as SwarmJson;
      expect(resultA.status).toBe('completed');
      expect(resultB.status).toBe('completed');
      expect(resultA.workflowId).toBe(swarmA);
      // A reported drained only once the swarm pinned to it had closed.
      const closedA = (await temporalClient.workflow.getHandle(swarmA).describe()).closeTime?.getTime();
      expect(closedA).toBeLessThanOrEqual(drained);
      log(`the swarm on A closed ${seconds((closedA as number) - switched)} after B became current`);

      // The first swarm ran on A's code only, its scripts on A's workers; the second on B's.
      const runsA = await histories(swarmA);
      const runsB = await histories(resultB.workflowId);
      expect([...buildIdsOf(runsA)]).toEqual([buildA]);
      expect([...buildIdsOf(runsB)]).toEqual([B_BUILD]);
      expect([...pidsOf(runsA)].every((pid) => aPids.includes(pid))).toBe(true);
      expect([...pidsOf(runsB)].every((pid) => bPids.includes(pid))).toBe(true);
      expect(runsA.some((run) => run.memo?.upgradeBuild !== undefined)).toBe(false);
      expect(runsB.find((run) => run.workflowId === resultB.workflowId)?.memo?.upgradeBuild).toBe('B');

      // The gate was answered once.
      const answers = runsA.flatMap((run) =>
        run.events.filter((event) => event.workflowExecutionUpdateAcceptedEventAttributes),
      );
      expect(answers).toHaveLength(1);

      // Every item's output is stored exactly once: each instance of the map names one output,
      // each output is a record of its own, and no spawn stored a record twice.
      for (const [result, items] of [
        [resultA, ITEMS],
        [resultB, B_ITEMS],
      ] as const) {
        const fan = result.tasks.find((task) => task.task === 'fan');
        expect(fan?.status).toBe('done');
        let outIds: string[];
        if (fan?.manifest === undefined) outIds = result.outputs.fan ?? [];
        else {
          const refs = await runWharf(['outputs', 'refs', fan.manifest, '--records'], client, { env });
          expect(refs.code, refs.stderr).toBe(0);
          const entries = refs.stdout
            .split('\n')
            .filter((line) => line.trim() !== '')
            .map((line) => JSON.parse(line) as { instance: number; outIds: string[] });
          expect(new Set(entries.map((entry) => entry.instance)).size).toBe(items);
          for (const entry of entries) expect(entry.outIds, `instance ${entry.instance}`).toHaveLength(1);
          outIds = entries.flatMap((entry) => entry.outIds);
        }
        expect(outIds).toHaveLength(items);
        expect(new Set(outIds).size).toBe(items);
        const listed = await runWharf(
          ['outputs', 'list', '--run', result.workflowId, '--limit', '1000', '--json'],
          client,
          { env },
        );
        expect(listed.code, listed.stderr).toBe(0);
        const records = JSON.parse(listed.stdout) as {
          outId: string;
          name?: string;
          producer: { spawnId: string };
        }[];
        const listedIds = new Set(records.map((record) => record.outId));
        expect(outIds.every((outId) => listedIds.has(outId))).toBe(true);
        const perSpawn = new Map<string, number>();
        for (const { producer, name } of records)
          perSpawn.set(`${producer.spawnId}/${name}`, (perSpawn.get(`${producer.spawnId}/${name}`) ?? 0) + 1);
        expect([...perSpawn.entries()].filter(([, count]) => count > 1)).toEqual([]);
      }

      // Every worker was replaced: A's are stopped, B's run.
      const states = Object.fromEntries((await cluster.status()).map((state) => [state.name, state.running]));
      expect(states).toMatchObject({ 'wharf-worker-1': false, 'wharf-worker-2': false });
      expect(upgraded.every((child) => child.exitCode === null)).toBe(true);
    });
  },
);
