import type { Benchmark } from './benchmark.js';
import { channelsBenchmark } from './channels/index.js';
import { contextResolverBenchmark } from './context-resolver/index.js';
import { evidenceBenchmark } from './evidence/index.js';
import { contextPlanBenchmark } from './orchestrator/context-plan.js';
import { encryptionBenchmark } from './orchestrator/encryption.js';
import { orchestratorBenchmark } from './orchestrator/index.js';
import { peersBenchmark, peersClusterBenchmark } from './orchestrator/peers.js';
import { serversBenchmark } from './orchestrator/servers.js';
import { streamLatencyBenchmark } from './orchestrator/stream-latency.js';
import { swarmDefinitionBenchmark } from './orchestrator/swarm-definition.js';
import { wideMapBenchmark } from './orchestrator/wide-map.js';
import { wideSwarmBenchmark } from './orchestrator/wide-swarm.js';
import { outputStoreDataPlaneBenchmark } from './output-store/data-plane-benchmark.js';
import { outputStoreBenchmark } from './output-store/index.js';
import { outputStoreS3Benchmark } from './output-store/s3-benchmark.js';
import { postgresStoreBenchmark } from './output-store-postgres/index.js';
import { stdioLimitsBenchmark } from './stdio-limits/index.js';
/** Every benchmark `pnpm bench` runs, in order. Each package's benchmark adds itself here. */
export const benchmarks: Benchmark[] = [
  channelsBenchmark,
  stdioLimitsBenchmark,
  contextPlanBenchmark,
  swarmDefinitionBenchmark,
  contextResolverBenchmark,
  evidenceBenchmark,
  outputStoreBenchmark,
  postgresStoreBenchmark,
  outputStoreS3Benchmark,
  outputStoreDataPlaneBenchmark,
  orchestratorBenchmark,
  wideSwarmBenchmark,
  wideMapBenchmark,
  peersBenchmark,
  encryptionBenchmark,
  serversBenchmark,
  peersClusterBenchmark,
  streamLatencyBenchmark,
];
