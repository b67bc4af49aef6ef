import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { InMemoryArtifactStore } from '@wharf/evidence';
import { parseSwarm, wharfSearchAttributeKinds } from '@wharf/orchestrator';
import { WharfClient } from '@wharf/orchestrator/client';
import { startDevServer } from '@wharf/orchestrator/dev-server';
import { createWharfDataConverter, type KeyRing, parseKeyRing } from '@wharf/orchestrator/node';
import { createWharfWorker, workflowsPath } from '@wharf/orchestrator/worker';
import { SqliteOutputStore } from '@wharf/output-store';
import type { Benchmark } from '../benchmark.js';
import { formatTable } from '../harness.js';

const quiet = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: console.error };
const COMMAND = 'echo "subagent $WHARF_INSTANCE"';

/**
 * What payload encryption costs: the same N trivial script subagents through `swarmWorkflow`,
 * once with the AES-256-GCM codec (and the encrypting failure converter) in the worker's and the
 * client's data converter, once without, each on a worker and task queue of its own on one dev
 * server, both polling throughout. One untimed warm-up per side, then alternating rounds, each
 * side keeping its best (smoke: 60 subagents, 1 round; else 300 and 3 rounds;
 * `WHARF_BENCH_ENCRYPTION_SUBAGENTS` sets the count).
 */
export const encryptionBenchmark: Benchmark = {
  name: 'orchestrator-encryption',
  async run(options) {
    const fromEnv = Number(process.env.WHARF_BENCH_ENCRYPTION_SUBAGENTS ?? '');
    const count = Number.isSafeInteger(fromEnv) && fromEnv > 0 ? fromEnv : options.smoke ? 60 : 300;
    const rounds = options.smoke ? 1 : 3;
    try {
      Runtime.install({ logger: new DefaultLogger('ERROR') });
    } catch {
      // installed already
    }
    const dir = await mkdtemp(join(tmpdir(), 'wharf-bench-encryption-'));
    const server = await startDevServer({ ui: false, searchAttributes: wharfSearchAttributeKinds });
    const connection = await Connection.connect({ address: server.address });
    const nativeConnection = await NativeConnection.connect({ address: server.address });
    const store = new SqliteOutputStore({ path: join(dir, 'outputs.db') });
    const keyRing = parseKeyRing(`bench:${randomBytes(32).toString('base64')}`);
    try {
      const concurrency = 32;
      const workflowBundle = await bundleWorkflowCode({ workflowsPath, logger: quiet });
      const side = async (name: string, ring: KeyRing | undefined) => {
        const taskQueue = `bench-${name}`;
        const worker = await createWharfWorker({
          connection: nativeConnection,
          taskQueue,
          store,
          artifacts: new InMemoryArtifactStore({ spoolDirectories: [join(dir, 'work')] }),
          workDir: join(dir, 'work'),
          maxConcurrentActivities: concurrency,
          workflowBundle,
          keyRing: ring,
        });
        const wharf = new WharfClient({
          connection,
          taskQueue,
          dataConverter: createWharfDataConverter({ store, keyRing: ring }),
        });
        /** Runs one swarm of `n` subagents to completion; its wall time. */
        const timed = async (n: number) => {
          const definition = `name: bench-${name}\ntasks:\n  trivial:\n    loop: { type: repeat, count: ${n} }\n    script: { content: ${JSON.stringify(COMMAND)} }\n`;
          const started = performance.now();
          const { workflowId } = await wharf.startSwarm(
            parseSwarm(definition),
            {},
            { maxConcurrentTasks: concurrency },
          );
          const result = await wharf.result(workflowId);
          if (result.status !== 'completed') throw new Error(`swarm ${result.status}`);
          return (performance.now() - started) / 1000;
        };
        return { worker, timed };
      };
      const encrypted = await side('encrypted', keyRing);
      const plain = await side('plain', undefined);
      const all: [number[], number[]] = [[], []];
      await encrypted.worker.runUntil(() =>
        plain.worker.runUntil(async () => {
          await encrypted.timed(Math.min(count, 20));
          await plain.timed(Math.min(count, 20));
          for (let round = 0; round < rounds; round++) {
            const order = round % 2 === 0 ? ([0, 1] as const) : ([1, 0] as const);
            for (const which of order) all[which].push(await (which === 0 ? encrypted : plain).timed(count));
          }
        }),
      );
      const [withSeconds, withoutSeconds] = all.map((runs) => Math.min(...runs)) as [number, number];
      const table = formatTable(`${count} trivial script subagents (worker concurrency ${concurrency})`, [
        {
          name: 'payload encryption on vs off, subagents/s',
          ours: count / withSeconds,
          baseline: count / withoutSeconds,
          target: 0.9,
        },
      ]);
      return [
        table,
        `wall time, best of ${rounds} alternating rounds after one warm-up each: encrypted ${withSeconds.toFixed(2)} s, plain ${withoutSeconds.toFixed(2)} s`,
        `rounds: encrypted ${all[0].map((s) => s.toFixed(2)).join(' ')} s, plain ${all[1].map((s) => s.toFixed(2)).join(' ')} s`,
      ].join('\n');
    } finally {
      await store.close();
      await connection.close();
      await nativeConnection.close();
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    }
  },
};
