import { channelsBenchmark } from './channels/index.js';
import { contextResolverBenchmark } from './context-resolver/index.js';
import { evidenceBenchmark } from './evidence/index.js';
import { orchestratorBenchmark } from './orchestrator/index.js';
import { wideSwarmBenchmark } from './orchestrator/wide-swarm.js';
import { outputStoreBenchmark } from './output-store/index.js';
import { postgresStoreBenchmark } from './output-store-postgres/index.js';
import { stdioLimitsBenchmark } from './stdio-limits/index.js';
/** A benchmark: runs its workload against a baseline and returns a printable report. */
export interface Benchmark {
  name: string;
  run(options: { smoke: boolean }): Promise<string>;
}

/** Every benchmark `pnpm bench` runs, in order. Each package's benchmark adds itself here. */
export const benchmarks: Benchmark[] = [
  channelsBenchmark,
  stdioLimitsBenchmark,
  contextResolverBenchmark,
  evidenceBenchmark,
  outputStoreBenchmark,
  postgresStoreBenchmark,
  orchestratorBenchmark,
  wideSwarmBenchmark,
];
