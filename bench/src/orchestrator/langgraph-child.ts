// The LangGraph.js side of `orchestrator-peers` in a process of its own, so that its memory is its
// own and a SIGKILL ends it as it would end a user's process. Reads its options as JSON from
// argv[2], prints one JSON line with the result, its seconds (from the graph's start, the modules
// loaded), its peak RSS, and the CPU seconds of the run: the machine's and its process tree's
// (this process, its spawn server and the scripts).
import { SpawnServer } from '@wharf/stdio-limits';
import { type LangGraphSaver, runLangGraphFanOut } from './langgraph-fan-out.js';
import { cpuSpent, machineCpuSeconds, treeCpuSeconds } from './process-cpu.js';

const options = JSON.parse(process.argv[2] ?? '{}') as {
  items: number;
  script: string;
  shell: string;
  saver: LangGraphSaver;
  threadId: string;
  concurrency: number;
  resume: boolean;
};
const spawner = new SpawnServer();
const cpu = async () => ({ machine: await machineCpuSeconds(), tree: await treeCpuSeconds(process.pid) });
const startCpu = await cpu();
const started = performance.now();
try {
  const result = await runLangGraphFanOut({ ...options, spawner });
  const seconds = (performance.now() - started) / 1000;
  const endCpu = await cpu();
  const cpuSeconds = cpuSpent(startCpu, endCpu);
  // maxRSS is in KiB.
  const peakRss = process.resourceUsage().maxRSS * 1024;
  process.stdout.write(`${JSON.stringify({ ...result, seconds, peakRss, cpuSeconds })}\n`);
} finally {
  await spawner.close();
}
