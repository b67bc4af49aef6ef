import type { Benchmark } from '../benchmark.js';
import { runContext } from './context.js';
import { runScenario } from './scenario.js';
import { MiB } from './shared.js';
import { runThroughput } from './throughput.js';

/** Bounded capture, spill integrity, throughput against `cat`, and context building at scale. */
export const stdioLimitsBenchmark: Benchmark = {
  name: 'stdio-limits',
  async run({ smoke }) {
    const scenario = smoke ? await runScenario(5, 2 * MiB) : await runScenario(100, 10 * MiB);
    const throughput = await runThroughput(smoke ? 16 * MiB : 1024 * MiB);
    const context = await runContext(smoke ? 500 : 10_000);
    return [scenario, throughput, context].join('\n\n');
  },
};
