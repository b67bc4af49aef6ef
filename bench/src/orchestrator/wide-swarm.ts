import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { InMemoryArtifactStore } from '@wharf/evidence';
import { parseSwarm, wharfSearchAttributeKinds } from '@wharf/orchestrator';
import { runChainHistory, WharfClient } from '@wharf/orchestrator/client';
import { startDevServer } from '@wharf/orchestrator/dev-server';
import { createWharfDataConverter } from '@wharf/orchestrator/node';
import { createWharfWorker, workflowsPath } from '@wharf/orchestrator/worker';
import { SqliteOutputStore } from '@wharf/output-store';
import type { Benchmark } from '../benchmark.js';
import { formatTable } from '../harness.js';
import { COUNT_REFS_SCRIPT, joinedRefs } from './map-swarm.js';

const quiet = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: console.error };
const MIB = 1024 * 1024;

/**
 * One wide swarm: N trivial loop instances and a join over all their out ids, through
 * `swarmWorkflow` on a dev server. Checks Temporal's limits per run of the continue-as-new
 * chain (history under 4 MiB, no payload over 256 KiB) and reports wall time, history bytes
 * per subagent, continue-as-new count and the worker process's peak RSS.
 */
export const wideSwarmBenchmark: Benchmark = {
  name: 'orchestrator-wide',
  async run(options) {
    const count = options.smoke ? 60 : 10_000;
    try {
      Runtime.install({ logger: new DefaultLogger('ERROR') });
    } catch {
      // installed already
    }
    const dir = await mkdtemp(join(tmpdir(), 'wharf-bench-wide-'));
    const server = await startDevServer({ ui: false, searchAttributes: wharfSearchAttributeKinds });
    const connection = await Connection.connect({ address: server.address });
    const nativeConnection = await NativeConnection.connect({ address: server.address });
    const store = new SqliteOutputStore({ path: join(dir, 'outputs.db') });
    let peakRss = process.memoryUsage().rss;
    const sampler = setInterval(() => {
      peakRss = Math.max(peakRss, process.memoryUsage().rss);
    }, 500);
    try {
      const concurrency = 32;
      const taskQueue = 'bench-wide';
      const worker = await createWharfWorker({
        connection: nativeConnection,
        taskQueue,
        store,
        artifacts: new InMemoryArtifactStore({ spoolDirectories: [join(dir, 'work')] }),
        workDir: join(dir, 'work'),
        maxConcurrentActivities: concurrency,
        workflowBundle: await bundleWorkflowCode({ workflowsPath, logger: quiet }),
      });
      const wharf = new WharfClient({
        connection,
        taskQueue,
        dataConverter: createWharfDataConverter({ store }),
      });
      const definition = parseSwarm(
        `name: wide\ntasks:\n  fan:\n    loop: { type: repeat, count: ${count} }\n    script: { content: 'echo "subagent $WHARF_INSTANCE"' }\n  join:\n    depends_on: [fan]\n    script: { content: ${JSON.stringify(COUNT_REFS_SCRIPT)} }\n`,
      );
      const started = performance.now();
      const { workflowId, firstExecutionRunId } = await wharf.startSwarm(
        definition,
        {},
        { maxConcurrentTasks: 64, ...(options.smoke ? { historyEventLimit: 100 } : {}) },
      );
      const result = await worker.runUntil(wharf.result(workflowId));
      const seconds = (performance.now() - started) / 1000;
      if (result.status !== 'completed') throw new Error(`swarm ${result.status}`);
      const seen = await joinedRefs(store, result.outputs.join?.[0]);
      if (seen !== count) throw new Error(`the join saw ${seen} refs, expected ${count}`);
      const runs = await runChainHistory(wharf.client, workflowId, firstExecutionRunId);
      const total = runs.reduce((sum, run) => sum + run.historyBytes, 0);
      const largestRun = Math.max(...runs.map((run) => run.historyBytes));
      const largestPayload = Math.max(...runs.map((run) => run.largestPayloadBytes));
      const perSubagent = total / (count + 1);
      const table = formatTable(
        `${count} loop instances + a join over all their out ids (Temporal's budgets)`,
        [
          { name: 'largest run history', measured: largestRun / 1024, budget: 4096, unit: 'KiB' },
          { name: 'largest payload', measured: largestPayload / 1024, budget: 256, unit: 'KiB' },
          { name: 'history per subagent', measured: perSubagent, budget: 4096, unit: 'B' },
        ],
      );
      return [
        table,
        `wall time: ${seconds.toFixed(1)} s (${(count / seconds).toFixed(1)} subagents/s, worker concurrency ${concurrency})`,
        `runs: ${runs.length} (continued as new ${result.metrics.continuedAsNew} times); history ${total} B in total, ${perSubagent.toFixed(0)} B per subagent; largest run ${largestRun} B (${runs.find((run) => run.historyBytes === largestRun)?.events} events); largest payload ${largestPayload} B`,
        `worker process peak RSS: ${(peakRss / MIB).toFixed(0)} MiB; the join saw ${seen} refs`,
      ].join('\n');
    } finally {
      clearInterval(sampler);
      await store.close();
      await connection.close();
      await nativeConnection.close();
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    }
  },
};
