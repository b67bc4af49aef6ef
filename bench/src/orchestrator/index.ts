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
import type { Benchmark } from '../benchmark.js';
import { formatTable } from '../harness.js';
import * as bareActivities from './bare-activities.js';

const COMMAND = 'echo "subagent $WHARF_INSTANCE"';
const quiet = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: console.error };

/**
 * N trivial script subagents through `swarmWorkflow` (capture, spill, store, artifacts,
 * compact payloads, channel folding) against a workflow running the same N scripts as plain
 * activities that fork the worker per script (printed for information), on one dev server, one worker each, same concurrency, both polling
 * throughout. Prints throughput and the history bytes per subagent. A second table prices the
 * context: dependent waves of subagents with their context chosen, read and written to a file,
 * against the same waves with `inject_context: false`. Both tables are measured alike, in smoke
 * runs too: one untimed warm-up per side, then alternating rounds, each side keeping its best
 * (smoke: 100 trivial subagents instead of 500, 1 round instead of 5, fewer context waves).
 */
export const orchestratorBenchmark: Benchmark = {
  name: 'orchestrator',
  async run(options) {
    // The forking workflow schedules its activities 2,000 at a time (Temporal's limit of pending
    // activities per workflow; one run of its chain each) and slows as that number grows, while
    // the swarm keeps a fixed number in flight: the ratio is a figure at 500 subagents.
    // Smoke runs 100 (it proves the benchmark runs; its figures are not a verdict).
    // `WHARF_BENCH_ORCHESTRATOR_SUBAGENTS` and `WHARF_BENCH_ORCHESTRATOR_ROUNDS` set both for a
    // run at scale (issue-sized figures: 10,000 subagents, 1 round).
    const count = positiveFromEnv('WHARF_BENCH_ORCHESTRATOR_SUBAGENTS') ?? (options.smoke ? 100 : 500);
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
        artifacts: new InMemoryArtifactStore({ spoolDirectories: [join(dir, 'work')] }),
        workDir: join(dir, 'work'),
        maxConcurrentActivities: concurrency,
        workflowBundle: await bundleWorkflowCode({ workflowsPath, logger: quiet }),
      });
      const wharf = new WharfClient({ connection, taskQueue: wharfQueue });
      const definition = `name: bench\ntasks:\n  trivial:\n    loop: { type: repeat, count: ${count} }\n    script: { content: ${JSON.stringify(COMMAND)} }\n`;
      const historyBytesOf = async (workflowId: string) =>
        proto.temporal.api.history.v1.History.encode(
          await wharf.client.workflow.getHandle(workflowId).fetchHistory(),
        ).finish().length;
      /** Runs one swarm to completion; its wall time and history size. */
      const timed = async (swarm: string) => {
        const started = performance.now();
        const { workflowId } = await wharf.startSwarm(
          parseSwarm(swarm),
          {},
          { maxConcurrentTasks: concurrency },
        );
        const result = await wharf.result(workflowId);
        const seconds = (performance.now() - started) / 1000;
        if (result.status !== 'completed') throw new Error(`swarm ${result.status}`);
        return { seconds, historyBytes: await historyBytesOf(workflowId) };
      };
      // Smoke runs fewer waves of the same width: each wave costs both sides alike, so the ratio
      // holds at any number of waves.
      const waves = options.smoke ? 6 : 20;
      const width = 10;

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
      let bareRuns = 0;
      /** Runs one forking workflow of `n` scripts to completion; its wall time. */
      const timedBare = async (n: number) => {
        const started = performance.now();
        await client.workflow.execute('bareWorkflow', {
          taskQueue: bareQueue,
          workflowId: `bare-${Date.now()}-${bareRuns++}`,
          args: [COMMAND.replace('$WHARF_INSTANCE', '0'), n],
        });
        return { seconds: (performance.now() - started) / 1000, historyBytes: 0 };
      };

      // Both workers poll throughout. Each side first runs once untimed (first workflow task,
      // new task queue on the server, cold code paths), then the rounds alternate sides and
      // each keeps its best round, so the other engineers' load on the shared cores and any
      // drift fall on both alike. Unwarmed, these fixed costs decided the ratio of a small run.
      // Smoke and full runs measure the same way; smoke keeps 1 round (CI's time, not a verdict).
      const rounds = positiveFromEnv('WHARF_BENCH_ORCHESTRATOR_ROUNDS') ?? (options.smoke ? 1 : 5);
      const warmup = `name: warmup\ntasks:\n  trivial:\n    loop: { type: repeat, count: ${Math.min(count, 20)} }\n    script: { content: ${JSON.stringify(COMMAND)} }\n`;
      const measured = await wharfWorker.runUntil(() =>
        bareWorker.runUntil(async () => {
          await timed(warmup);
          await timedBare(Math.min(count, 20));
          const trivialRows = await alternate(rounds, [() => timed(definition), () => timedBare(count)]);
          await timed(waveSwarm(2, width, true));
          await timed(waveSwarm(2, width, false));
          const contextRows = await alternate(rounds, [
            () => timed(waveSwarm(waves, width, true)),
            () => timed(waveSwarm(waves, width, false)),
          ]);
          return { trivialRows, contextRows };
        }),
      );
      const [trivial, bare] = measured.trivialRows.best;
      const [withContext, withoutContext] = measured.contextRows.best;
      const wharfSeconds = trivial.seconds;
      const bareSeconds = bare.seconds;
      const historyBytes = trivial.historyBytes;
      const roundsOf = (side: readonly { seconds: number }[]) =>
        side.map((run) => run.seconds.toFixed(2)).join(' ');
      const table = formatTable(`${count} trivial script subagents (worker concurrency ${concurrency})`, [
        {
          // Information, not a verdict: the baseline forks the worker process for each script, as a
          // naive user would, while Wharf starts them through its spawn server. The judged
          // comparisons are `orchestrator-peers`' (LangGraph.js, and Temporal's own no-op ceiling).
          name: 'swarmWorkflow vs a workflow that forks the worker per script, subagents/s',
          ours: count / wharfSeconds,
          baseline: count / bareSeconds,
          target: 'info',
        },
      ]);
      const subagents = waves * width;
      const contextTable = formatTable(
        `${subagents} script subagents in ${waves} dependent waves of ${width}: context on vs inject_context: false`,
        [
          {
            name: 'swarmWorkflow with context, subagents/s',
            ours: subagents / withContext.seconds,
            baseline: subagents / withoutContext.seconds,
            target: 0.8,
          },
        ],
      );
      return [
        table,
        `wall time, best of ${rounds} alternating rounds after one warm-up each: Wharf ${wharfSeconds.toFixed(2)} s, forking workflow ${bareSeconds.toFixed(2)} s`,
        `rounds: Wharf ${roundsOf(measured.trivialRows.all[0])} s, forking workflow ${roundsOf(measured.trivialRows.all[1])} s`,
        `history: ${historyBytes} B in total, ${(historyBytes / count).toFixed(0)} B per subagent`,
        '',
        contextTable,
        `wall time, best of ${rounds} alternating rounds after one warm-up each: ${withContext.seconds.toFixed(2)} s with context, ${withoutContext.seconds.toFixed(2)} s without`,
        `rounds: with ${roundsOf(measured.contextRows.all[0])} s, without ${roundsOf(measured.contextRows.all[1])} s`,
        `history per subagent: ${(withContext.historyBytes / subagents).toFixed(0)} B with context, ${(withoutContext.historyBytes / subagents).toFixed(0)} B without`,
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

/** A positive whole number from the environment variable `name`, if it is set; else undefined. */
function positiveFromEnv(name: string): number | undefined {
  const text = process.env[name]?.trim();
  if (text === undefined || text === '') return undefined;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 1)
    throw new Error(`${name} must be a positive whole number, not ${text}`);
  return value;
}

/** Every round of two sides, and each side's fastest round. */
interface Alternated<TRun extends { seconds: number }> {
  all: [TRun[], TRun[]];
  best: [TRun, TRun];
}

/**
 * Runs two sides in `rounds` alternating rounds (A B, B A, A B, …) and keeps every round and each
 * side's fastest, so load and drift fall on both sides alike.
 */
async function alternate<TRun extends { seconds: number }>(
  rounds: number,
  sides: [() => Promise<TRun>, () => Promise<TRun>],
): Promise<Alternated<TRun>> {
  const all: [TRun[], TRun[]] = [[], []];
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? [0, 1] : [1, 0];
    for (const side of order) all[side as 0 | 1].push(await sides[side as 0 | 1]());
  }
  const fastest = (runs: TRun[]) => runs.reduce((best, run) => (run.seconds < best.seconds ? run : best));
  return { all, best: [fastest(all[0]), fastest(all[1])] };
}

/**
 * `waves` waves of `width` scripts, each task depending on every task of the wave before and
 * reading its context (or not, with `inject_context: false`).
 */
function waveSwarm(waves: number, width: number, context: boolean): string {
  const lines = ['name: waves', 'tasks:'];
  for (let wave = 0; wave < waves; wave++) {
    for (let index = 0; index < width; index++) {
      lines.push(`  w${wave}_${index}:`);
      lines.push(
        `    script: { content: ${JSON.stringify(context ? 'wc -c < "$WHARF_CONTEXT_FILE" 2>/dev/null || echo 0' : 'echo 0')} }`,
      );
      if (!context) lines.push('    inject_context: false');
      if (wave > 0) {
        const previous = Array.from({ length: width }, (_, other) => `w${wave - 1}_${other}`);
        lines.push(`    depends_on: [${previous.join(', ')}]`);
      }
    }
  }
  return `${lines.join('\n')}\n`;
}
