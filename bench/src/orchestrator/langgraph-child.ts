// The LangGraph.js side of `orchestrator-peers` in a process of its own, so that its memory is its
// own and a SIGKILL ends it as it would end a user's process. Reads its options as JSON from
// argv[2], prints one JSON line with the result, its seconds (from the graph's start, the modules
// loaded) and its peak RSS.
import { SpawnServer } from '@wharf/stdio-limits';
import { runLangGraphFanOut } from './langgraph-fan-out.js';

const options = JSON.parse(process.argv[2] ?? '{}') as {
  items: number;
  script: string;
  shell: string;
  checkpointPath: string;
  threadId: string;
  concurrency: number;
  resume: boolean;
};
const spawner = new SpawnServer();
const started = performance.now();
try {
  const result = await runLangGraphFanOut({ ...options, spawner });
  const seconds = (performance.now() - started) / 1000;
  // maxRSS is in KiB.
  const peakRss = process.resourceUsage().maxRSS * 1024;
  process.stdout.write(`${JSON.stringify({ ...result, seconds, peakRss })}\n`);
} finally {
  await spawner.close();
}
