import type { Benchmark } from '../benchmark.js';
import { runScenario } from './scenario.js';
import { MiB } from './shared.js';
import { runThroughput } from './throughput.js';

/** Bounded capture, spill integrity and throughput against `cat`. */
export const stdioLimitsBenchmark: Benchmark = {
  name: 'stdio-limits',
  async run({ smoke }) {
    const scenario = smoke ? await runScenario(5, 2 * MiB) : await runScenario(100, 10 * MiB);
    const throughput = await runThroughput(smoke ? 64 * MiB : 1024 * MiB);
    return [scenario, throughput].join('\n\n');
  },
};
