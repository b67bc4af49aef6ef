import { parseSwarm, validateSwarm } from '@wharf/orchestrator';
import { parseDocument } from 'yaml';
import type { Benchmark } from '../benchmark.js';
import { measureInterleaved } from '../evidence/interleaved.js';
import { formatTable } from '../harness.js';

/** A YAML chain `t0 ← t1 ← … ← t(n-1)`; each task depends on the one before and reads its output. */
function chainYaml(count: number): string {
  const lines = ['name: chain', 'tasks:', '  t0: { script: { content: echo }, output: †data.t0 }'];
  for (let index = 1; index < count; index++) {
    lines.push(
      `  t${index}: { script: { content: echo }, depends_on: [t${index - 1}], inputs: { p: †data.t${index - 1} }, output: †data.t${index} }`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/**
 * A chain whose tasks read the output of the task two places up, written by a dependency of a
 * dependency: the reference check has to know what runs before each task, not only its
 * `depends_on`.
 */
function skipChain(count: number): Record<string, unknown> {
  const tasks: Record<string, unknown> = {};
  for (let index = 0; index < count; index++) {
    tasks[`t${index}`] = {
      script: { content: 'echo' },
      depends_on: index === 0 ? [] : [`t${index - 1}`],
      ...(index < 2 ? {} : { inputs: { p: `†data.t${index - 2}` } }),
      output: `†data.t${index}`,
    };
  }
  return { name: 'skip', tasks };
}

/**
 * Checking a swarm definition: `parseSwarm` of a large chain against `yaml`'s `parseDocument`
 * of the same text (the YAML parse alone, which `parseSwarm` does too, with line counting),
 * and tasks per second at `large` tasks against `small` (1.00 = linear) for `parseSwarm` and
 * for `validateSwarm` on a chain whose reads need transitive dependencies.
 */
export async function runSwarmDefinition(options: {
  small: number;
  large: number;
  sizes: readonly number[];
  rounds: number;
}): Promise<string> {
  const { small, large, rounds } = options;
  const texts = new Map(options.sizes.map((size) => [size, chainYaml(size)]));
  const text = (size: number) => texts.get(size) ?? chainYaml(size);
  const [ours, yamlOnly] = await measureInterleaved(
    [async () => parseSwarm(text(large)), async () => parseDocument(text(large), { uniqueKeys: false })],
    rounds,
  );
  const bySize = await measureInterleaved(
    options.sizes.map((size) => async () => parseSwarm(text(size))),
    rounds,
  );
  const seconds = (size: number) => bySize[options.sizes.indexOf(size)]?.seconds ?? Number.NaN;
  const skipSmall = skipChain(small);
  const skipLarge = skipChain(large);
  // A call lasts under a second even at full size: more rounds, so that load from other
  // processes, which falls on one size at a time, is less likely to decide the ratio.
  const [validateSmall, validateLarge] = await measureInterleaved(
    [async () => validateSwarm(skipSmall), async () => validateSwarm(skipLarge)],
    rounds + 4,
  );
  const perTask = (count: number, time: number) => count / time;
  const count = (size: number) => size.toLocaleString('en-US');
  return [
    formatTable('Checking a swarm definition (tasks/s)', [
      {
        name: `parseSwarm, ${count(large)}-task chain vs yaml parseDocument`,
        ours: perTask(large, ours?.seconds ?? Number.NaN),
        baseline: perTask(large, yamlOnly?.seconds ?? Number.NaN),
        target: 0.5,
      },
      {
        name: `parseSwarm scale: ${count(large)} vs ${count(small)} tasks (1.00 = linear)`,
        ours: perTask(large, seconds(large)),
        baseline: perTask(small, seconds(small)),
        target: 0.5,
      },
      {
        name: `validateSwarm scale, reads 2 tasks up: ${count(large)} vs ${count(small)} (1.00 = linear)`,
        ours: perTask(large, validateLarge?.seconds ?? Number.NaN),
        baseline: perTask(small, validateSmall?.seconds ?? Number.NaN),
        target: 0.5,
      },
    ]),
    `parseSwarm of a chain: ${options.sizes.map((size) => `${count(size)} tasks ${(seconds(size) * 1000).toFixed(0)} ms`).join(', ')}; ` +
      `yaml parseDocument of ${count(large)}: ${((yamlOnly?.seconds ?? 0) * 1000).toFixed(0)} ms`,
  ].join('\n');
}

/** Parsing and checking large swarm definitions (pure, no Temporal). */
export const swarmDefinitionBenchmark: Benchmark = {
  name: 'swarm-definition',
  run: ({ smoke }) =>
    runSwarmDefinition(
      smoke
        ? { small: 500, large: 2_000, sizes: [500, 2_000], rounds: 2 }
        : { small: 2_000, large: 20_000, sizes: [2_000, 6_000, 20_000], rounds: 3 },
    ),
};
