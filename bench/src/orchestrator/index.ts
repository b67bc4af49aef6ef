import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { InMemoryArtifactStore } from '@wharf/evidence';
import { parseSwarm, wharfSearchAttributeKinds } from '@wharf/orchestrator';
import { WharfClient } from '@wharf/orchestrator/client';
import { startDevServer } from '@wharf/orchestrator/dev-server';
import { createWharfWorker, workflowsPath } from '@wharf/orchestrator/worker';
import { SqliteOutputStore } from '@wharf/output-store';
import { formatTable } from '../harness.js';
import type { Benchmark } from '../registry.js';
import * as bareActivities from './bare-activities.js';

const COMMAND = 'echo "subagent $WHARF_INSTANCE"';
const quiet = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: console.error };

/**
 * N trivial script subagents through `swarmWorkflow` (capture, spill, store, artifacts,
 * compact payloads, channel folding) against a bare workflow running the same N scripts as
 * plain activities, on one dev server, one worker each, same concurrency. Prints throughput
 * and the history bytes per subagent.
 */
export const orchestratorBenchmark: Benchmark = {
  name: 'orchestrator',
  async run(options) {
    const count = options.smoke ? 20 : 500;
    try {
      Runtime.install({ logger: new DefaultLogger('ERROR') });
    } catch {
      // installed already
    }
    const dir = await mkdtemp(join(tmpdir(), 'wharf-bench-orchestrator-'));
    const server = await startDevServer({ ui: false, searchAttributes: wharfSearchAttributeKinds });
    const connection = await Connection.connect({ address: server.address });
    const nativeConnection = await NativeConnection.connect({ address: server.address });
    const store = new SqliteOutputStore({ path: join(dir, 'outputs.db') });
    try {
      const concurrency = 32;
      // Wharf.
      const wharfQueue = 'bench-wharf';
      const wharfWorker = await createWharfWorker({
        connection: nativeConnection,
        taskQueue: wharfQueue,
        store,
        artifacts: new InMemoryArtifactStore(),
        workDir: join(dir, 'work'),
        maxConcurrentActivities: concurrency,
        workflowBundle: await bundleWorkflowCode({ workflowsPath, logger: quiet }),
      });
      const wharf = new WharfClient({ connection, taskQueue: wharfQueue });
      const definition = parseSwarm(
        `name: bench\ntasks:\n  trivial:\n    loop: { type: repeat, count: ${count} }\n    script: { content: ${JSON.stringify(COMMAND)} }\n`,
      );
      const wharfStart = performance.now();
      const { workflowId } = await wharf.startSwarm(definition, {}, { maxConcurrentTasks: concurrency });
      const result = await wharfWorker.runUntil(wharf.result(workflowId));
      const wharfSeconds = (performance.now() - wharfStart) / 1000;
      if (result.status !== 'completed') throw new Error(`swarm ${result.status}`);
      const history = await wharf.client.workflow.getHandle(workflowId).fetchHistory();
      const historyBytes = proto.temporal.api.history.v1.History.encode(history).finish().length;

      // Bare workflow, same scripts.
      const bareQueue = 'bench-bare';
      const bareWorker = await Worker.create({
        connection: nativeConnection,
        taskQueue: bareQueue,
        workflowBundle: await bundleWorkflowCode({
          workflowsPath: fileURLToPath(new URL('./bare-workflow.js', import.meta.url)),
          logger: quiet,
        }),
        activities: bareActivities,
        maxConcurrentActivityTaskExecutions: concurrency,
      });
      const client = new Client({ connection });
      const bareStart = performance.now();
      await bareWorker.runUntil(
        client.workflow.execute('bareWorkflow', {
          taskQueue: bareQueue,
          workflowId: `bare-${Date.now()}`,
          args: [COMMAND.replace('$WHARF_INSTANCE', '0'), count],
        }),
      );
      const bareSeconds = (performance.now() - bareStart) / 1000;

      const table = formatTable(`${count} trivial script subagents (worker concurrency ${concurrency})`, [
        {
          name: 'swarmWorkflow vs bare workflow, subagents/s',
          ours: count / wharfSeconds,
          baseline: count / bareSeconds,
          target: 0.7,
        },
      ]);
      return `${table}\nwall time: Wharf ${wharfSeconds.toFixed(2)} s, bare ${bareSeconds.toFixed(2)} s\nhistory: ${historyBytes} B in total, ${(historyBytes / count).toFixed(0)} B per subagent`;
    } finally {
      await store.close();
      await connection.close();
      await nativeConnection.close();
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    }
  },
};
