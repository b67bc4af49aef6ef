import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { cachedWorkflowBundle } from '@wharf/orchestrator/worker';
import { SpawnServer } from '@wharf/stdio-limits';
import type { Benchmark } from '../benchmark.js';
import { type BenchRow, formatTable } from '../harness.js';
import { type CeilingFigures, runCeiling } from './ceiling.js';
import type { CeilingScript } from './ceiling-activities.js';
import { historyActions, percentile } from './history-actions.js';
import { itemScript } from './item-log.js';
import { type LangGraphSideFigures, runLangGraphSide } from './langgraph-side.js';
import { type PeersServer, startClusterPeersServer, startDevPeersServer } from './peers-server.js';
import type { RunEvents } from './run-chain-events.js';
import { runWharfFanOut, type WharfFanOutFigures, type WharfFanOutSettings } from './wharf-fan-out.js';

const quiet = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: console.error };
const MIB = 1024 * 1024;

/** Wharf's side, as `orchestrator-wide-map` runs it; the ceiling copies it. */
const WHARF: WharfFanOutSettings = { workerConcurrency: 32, swarmConcurrency: 64, historyEventLimit: 2_000 };
/** Smoke runs bound the history lower, so that even their few items span several runs. */
const SMOKE_HISTORY_EVENT_LIMIT = 300;

/** The items: `WHARF_BENCH_PEERS_ITEMS`, else 10,000 (smoke: 100). */
function itemCount(smoke: boolean): number {
  const text = process.env.WHARF_BENCH_PEERS_ITEMS?.trim();
  if (text === undefined || text === '') return smoke ? 100 : 10_000;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 2)
    throw new Error(`WHARF_BENCH_PEERS_ITEMS must be a whole number of at least 2, not ${text}`);
  return value;
}

/**
 * The headline fan-out against the peer and against the engine's own limit. The same N items
 * (10,000; 100 in smoke runs), one trivial script each (it logs its item and prints it), run
 * (1) through Wharf (a map over a stored list, the shipped worker in a process of its own) and
 * (2) through LangGraph.js (`Send` per item, each node running the script through a
 * `SpawnServer`, checkpointed by the SQLite saver into a file), at the same concurrency: then
 * each again with a SIGKILL once half the items ran (Wharf: the worker, a new one takes over;
 * LangGraph.js: its process, a new one resumes the thread), counting the items redone and lost;
 * and (3) N no-op activities on the same server with Wharf's worker settings and concurrency
 * structure: the ceiling, with Temporal actions per subagent and scheduling latency.
 * `WHARF_BENCH_PEERS_SANDBOX` sets the Wharf worker's `WHARF_SANDBOX` (default: its own, `auto`).
 * On the dev server; {@link peersClusterBenchmark} runs the same on the native topology.
 */
export const peersBenchmark: Benchmark = {
  name: 'orchestrator-peers',
  async run(options) {
    const dir = await mkdtemp(join(tmpdir(), 'wharf-bench-peers-'));
    try {
      return await runPeers(options.smoke, dir, await startDevPeersServer());
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
};

/**
 * `orchestrator-peers` on the native topology, as users deploy Wharf: the Temporal server built
 * from `go.temporal.io/server` on PostgreSQL, and Wharf's worker writing its outputs to the
 * cluster's PostgreSQL and S3 (the cluster runs no workers of its own). The ceilings run on the
 * same server. LangGraph.js runs as on the dev server (the judged row, with its SQLite saver),
 * then again with its PostgreSQL saver in a database of the cluster's PostgreSQL (an `info` row:
 * the peer durable where Wharf is). Skipped where the cluster's binaries are not built.
 */
export const peersClusterBenchmark: Benchmark = {
  name: 'orchestrator-peers-cluster',
  async run(options) {
    const dir = await mkdtemp(join(tmpdir(), 'wharf-bench-peers-cluster-'));
    try {
      const server = await startClusterPeersServer(dir);
      if (typeof server === 'string') return server;
      return await runPeers(options.smoke, dir, server);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
};

/** Every side of the comparison, Wharf's and the ceilings' on `server`, which it stops. */
async function runPeers(smoke: boolean, dir: string, server: PeersServer): Promise<string> {
  const items = itemCount(smoke);
  const sandbox = process.env.WHARF_BENCH_PEERS_SANDBOX?.trim();
  const settings: WharfFanOutSettings = {
    ...WHARF,
    historyEventLimit: smoke ? SMOKE_HISTORY_EVENT_LIMIT : WHARF.historyEventLimit,
    ...(sandbox === undefined || sandbox === '' ? {} : { sandbox }),
  };
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    // installed already
  }
  const cacheDir = join(dir, 'cache');
  let connection: Connection | undefined;
  let nativeConnection: NativeConnection | undefined;
  const runDir = async (name: string) => {
    const path = join(dir, name);
    await mkdir(path, { recursive: true });
    return path;
  };
  try {
    connection = await Connection.connect({ address: server.address });
    nativeConnection = await NativeConnection.connect({ address: server.address });
    const client = connection;
    const native = nativeConnection;
    await cachedWorkflowBundle({ dir: cacheDir, logger: quiet });
    const wharfSide = (killAtHalf: boolean, name: string) => async () =>
      runWharfFanOut({
        ...settings,
        items,
        address: server.address,
        namespace: server.namespace,
        serverCpuSeconds: () => server.serverCpuSeconds(),
        connection: client,
        workerEnv: server.workerEnv,
        ...(server.plane === undefined ? {} : { plane: server.plane }),
        ...(server.storeBytes === undefined ? {} : { storeBytes: server.storeBytes.bind(server) }),
        dir: await runDir(name),
        cacheDir,
        killAtHalf,
      });
    const langGraphSide =
      (killAtHalf: boolean, name: string, postgres?: PeersServer['langGraphPostgres']) => async () =>
        runLangGraphSide({
          items,
          concurrency: settings.workerConcurrency,
          dir: await runDir(name),
          killAtHalf,
          ...(postgres === undefined ? {} : { postgres }),
        });
    const wharf = await wharfSide(false, 'wharf')();
    const langGraph = await langGraphSide(false, 'langgraph')();
    const ceilingOf = (script?: CeilingScript) =>
      runCeiling({
        items,
        connection: client,
        nativeConnection: native,
        namespace: server.namespace,
        workerConcurrency: settings.workerConcurrency,
        inFlight: settings.swarmConcurrency,
        historyEventLimit: settings.historyEventLimit,
        serverCpuSeconds: () => server.serverCpuSeconds(),
        ...(script === undefined ? {} : { script }),
      });
    const ceiling = await ceilingOf();
    const spawner = new SpawnServer();
    let scriptCeiling: CeilingFigures;
    try {
      const log = join(await runDir('ceiling-script'), 'items.log');
      scriptCeiling = await ceilingOf({ shell: 'bash', script: itemScript(log), spawner });
    } finally {
      await spawner.close();
    }
    const wharfKilled = await wharfSide(true, 'wharf-kill')();
    const langGraphKilled = await langGraphSide(true, 'langgraph-kill')();
    // Where the server has PostgreSQL, the peer checkpointed there too, as Wharf is.
    const pg = server.langGraphPostgres;
    const langGraphPostgres =
      pg === undefined
        ? undefined
        : {
            run: await langGraphSide(false, 'langgraph-pg', pg)(),
            killed: await langGraphSide(true, 'langgraph-pg-kill', pg)(),
          };
    return report({
      items,
      settings,
      server,
      wharf,
      langGraph,
      ceiling,
      scriptCeiling,
      wharfKilled,
      langGraphKilled,
      ...(langGraphPostgres === undefined ? {} : { langGraphPostgres }),
    });
  } finally {
    await connection?.close();
    await nativeConnection?.close();
    await server.stop();
  }
}

/** Everything the benchmark measured. */
interface PeersFigures {
  items: number;
  settings: WharfFanOutSettings;
  server: PeersServer;
  wharf: WharfFanOutFigures;
  langGraph: LangGraphSideFigures;
  ceiling: CeilingFigures;
  /** The same activities each running the item's script through a spawn server. */
  scriptCeiling: CeilingFigures;
  wharfKilled: WharfFanOutFigures;
  langGraphKilled: LangGraphSideFigures;
  /** LangGraph.js with its PostgreSQL saver on the server's PostgreSQL (the cluster only): a run, and one killed halfway. */
  langGraphPostgres?: { run: LangGraphSideFigures; killed: LangGraphSideFigures };
}

/** The table and the lines under it. */
function report(figures: PeersFigures): string {
  const {
    items,
    settings,
    server,
    wharf,
    langGraph,
    ceiling,
    scriptCeiling,
    wharfKilled,
    langGraphKilled,
    langGraphPostgres: pg,
  } = figures;
  const rate = (seconds: number) => items / seconds;
  const inFlight = settings.workerConcurrency;
  const rows: BenchRow[] = [
    {
      name: `${items}: Wharf vs LangGraph.js + SQLite saver, subagents/s`,
      ours: rate(wharf.seconds),
      baseline: rate(langGraph.seconds),
      target: 1,
    },
    {
      name: `${items}: Wharf vs no-op activities on the same server (ceiling), subagents/s`,
      ours: rate(wharf.seconds),
      baseline: rate(ceiling.seconds),
      target: 0.6,
    },
    {
      name: `${items}: Wharf vs activities that each run the script, nothing more (script ceiling), subagents/s`,
      ours: rate(wharf.seconds),
      baseline: rate(scriptCeiling.seconds),
      target: 'info',
    },
    ...(pg === undefined
      ? []
      : [
          {
            name: `${items}: Wharf vs LangGraph.js + PostgreSQL saver on the same PostgreSQL, subagents/s`,
            ours: rate(wharf.seconds),
            baseline: rate(pg.run.seconds),
            target: 'info' as const,
          },
        ]),
    {
      name: 'SIGKILL halfway, Wharf: items lost',
      measured: items - Math.min(items, wharfKilled.itemsInResult),
      budget: 0,
      unit: 'items',
    },
    {
      name: `SIGKILL halfway, Wharf: items redone (budget: the ${inFlight} in flight)`,
      measured: wharfKilled.redone,
      budget: inFlight,
      unit: 'items',
    },
  ];
  const wharfActions = actionsOf(wharf.runs, items);
  const ceilingActions = actionsOf(ceiling.runs, items);
  const scriptActions = actionsOf(scriptCeiling.runs, items);
  const mib = (bytes: number) => `${(bytes / MIB).toFixed(0)} MiB`;
  return [
    formatTable(`the headline fan-out: ${items} items, one trivial script each`, rows),
    `configuration, Wharf: a map over a stored list of ${items} lines + a join over every ref; the shipped @wharf/worker in a process of its own (${wharf.sandbox}${sandboxNote(wharf.sandbox, settings.sandbox)}), ${settings.workerConcurrency} activity slots (WHARF_MAX_CONCURRENT), scripts through its spawn server; maxConcurrentTasks ${settings.swarmConcurrency}, historyEventLimit ${settings.historyEventLimit}; ${server.describe}`,
    `configuration, LangGraph.js: a Send per item to one node, maxConcurrency ${inFlight}, each node runs the same script by captureProcess (default limits) through a SpawnServer, stdout into a list channel; ${langGraph.saver}${pg === undefined ? '' : ` (and again with ${pg.run.saver} in a database of the cluster's PostgreSQL)`}; one process`,
    `configuration, script ceiling: the same workflow and worker, each activity runs the item's script by captureProcess (default limits) through a SpawnServer in the worker's process, returning nothing: Temporal's cost and the script's, no output store, evidence, spill or sandbox`,
    `configuration, ceiling: ceilingWorkflow, ${items} no-op activities, ${settings.swarmConcurrency} in flight, continue-as-new at ${settings.historyEventLimit} events, the script activity's timeouts; a plain Temporal worker in the bench process: ${ceiling.settings}`,
    `subagents/s: Wharf ${rate(wharf.seconds).toFixed(1)} (${wharf.seconds.toFixed(1)} s), LangGraph.js ${rate(langGraph.seconds).toFixed(1)} (${langGraph.seconds.toFixed(1)} s), ceiling ${rate(ceiling.seconds).toFixed(1)} (${ceiling.seconds.toFixed(1)} s), script ceiling ${rate(scriptCeiling.seconds).toFixed(1)} (${scriptCeiling.seconds.toFixed(1)} s)${pg === undefined ? '' : `, LangGraph.js + PostgreSQL saver ${rate(pg.run.seconds).toFixed(1)} (${pg.run.seconds.toFixed(1)} s)`}`,
    `peak RSS: Wharf worker ${mib(wharf.peakRss)}, LangGraph.js process ${mib(langGraph.peakRss)}`,
    ...cpuLines(figures),
    `bytes written per item: Wharf ${perItem(wharf.historyBytes + wharf.storeBytes, items)} (history ${perItem(wharf.historyBytes, items)} in ${wharf.runs.length} runs, output store ${perItem(wharf.storeBytes, items)}), LangGraph.js ${perItem(langGraph.checkpointBytes, items)} (SQLite saver file + WAL)${pg === undefined ? '' : `, LangGraph.js + PostgreSQL saver ${perItem(pg.run.checkpointBytes, items)} (its database's growth)`}`,
    `SIGKILL once ${Math.ceil(items / 2)} scripts ran: Wharf ${killLine(wharfKilled.runsBeforeKill, wharfKilled.redone, items - wharfKilled.itemsInResult, wharfKilled.seconds)}; LangGraph.js ${killLine(langGraphKilled.runsBeforeKill, langGraphKilled.redone, items - langGraphKilled.itemsInResult, langGraphKilled.seconds)}${duplicates(langGraphKilled)}${pg === undefined ? '' : `; LangGraph.js + PostgreSQL saver ${killLine(pg.killed.runsBeforeKill, pg.killed.redone, items - pg.killed.itemsInResult, pg.killed.seconds)}${duplicates(pg.killed)}`}`,
    `Temporal actions per subagent (billable, counted from history): Wharf ${wharfActions.perItem}, ceiling ${ceilingActions.perItem}; activities per subagent: Wharf ${wharfActions.activitiesPerItem}, ceiling ${ceilingActions.activitiesPerItem}`,
    `scheduling latency (ActivityTaskScheduled → Started), p50/p99: Wharf ${wharfActions.latency}, ceiling ${ceilingActions.latency}, script ceiling ${scriptActions.latency}`,
  ].join('\n');
}

/**
 * Where each side's CPU went, in milliseconds per subagent: the whole machine's busy time over
 * the timed run, and the processes of it that each side runs. The machine's figure also holds
 * whatever else ran meanwhile (on a quiet machine, little).
 */
function cpuLines({
  items,
  wharf,
  langGraph,
  langGraphPostgres,
  ceiling,
  scriptCeiling,
}: PeersFigures): string[] {
  const ms = (seconds: number) => ((1_000 * seconds) / items).toFixed(2);
  const lines: string[] = [];
  if (wharf.cpu !== undefined) {
    const { machine, server, serverParts, workerTree, process: worker, mainThread, kernel } = wharf.cpu;
    lines.push(
      `CPU per subagent, Wharf: machine ${ms(machine)} ms = ${partsText(serverParts, ms)} + worker tree ${ms(workerTree)} (the worker process ${ms(worker)}, its main thread ${ms(mainThread)}; its spawn server, sandbox and scripts ${ms(workerTree - worker)}) + kernel threads ${ms(kernel)} + the rest ${ms(machine - server - workerTree - kernel)}`,
    );
  }
  for (const [name, side, rest] of [
    ['LangGraph.js', langGraph, 'the rest'],
    ['LangGraph.js + PostgreSQL saver', langGraphPostgres?.run, 'the rest (PostgreSQL among it)'],
  ] as const) {
    if (side?.cpu === undefined) continue;
    const { machine, tree } = side.cpu;
    lines.push(
      `CPU per subagent, ${name}: machine ${ms(machine)} ms = its process tree (the process, its spawn server, the scripts) ${ms(tree)} + ${rest} ${ms(machine - tree)}`,
    );
  }
  for (const [name, side, process] of [
    ['ceiling', ceiling, 'the bench process (worker and client)'],
    [
      'script ceiling',
      scriptCeiling,
      'the bench process (worker and client), its spawn server and the scripts',
    ],
  ] as const) {
    const { machine, server, serverParts, worker } = side.cpu;
    lines.push(
      `CPU per subagent, ${name}: machine ${ms(machine)} ms = ${partsText(serverParts, ms)} + ${process} ${ms(worker)} + the rest ${ms(machine - server - worker)}`,
    );
  }
  return lines;
}

/** Actions and activities per item, and the scheduling latency, of a run chain. */
function actionsOf(runs: readonly RunEvents[], items: number) {
  const counted = historyActions(runs.map((run) => run.events));
  const latencies = counted.schedulingLatenciesMs;
  return {
    perItem: (counted.actions / items).toFixed(2),
    activitiesPerItem: (counted.activities / items).toFixed(2),
    latency: `${percentile(latencies, 0.5)}/${percentile(latencies, 0.99)} ms`,
  };
}

/** What to add to the worker's own word on its sandbox: that it is its default, or what set it. */
function sandboxNote(described: string, setting: string | undefined): string {
  if (setting === undefined) return ', its default';
  return described.includes(`WHARF_SANDBOX=${setting}`) ? '' : `, WHARF_SANDBOX=${setting}`;
}

/** `Temporal server 3.30 + PostgreSQL 8.10 + S3 0.40`: each server process's share. */
function partsText(parts: Record<string, number>, ms: (seconds: number) => string): string {
  return Object.entries(parts)
    .map(([name, seconds]) => `${name} ${ms(seconds)}`)
    .join(' + ');
}

function duplicates(side: LangGraphSideFigures): string {
  return side.duplicateOutputs > 0 ? `, ${side.duplicateOutputs} outputs twice in the state` : '';
}

function perItem(bytes: number, items: number): string {
  return `${(bytes / items).toFixed(0)} B`;
}

function killLine(before: number, redone: number, lost: number, seconds: number): string {
  return `${before} runs logged by the kill, ${redone} items redone, ${lost} lost, ${seconds.toFixed(1)} s in all`;
}
