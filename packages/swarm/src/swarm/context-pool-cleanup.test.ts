import { describe, expect, it } from 'vitest';
import { parseSwarm } from '../dsl/parse-swarm.js';
import { planContext } from '../relevance-pool/plan-context.js';
import { contextTasks } from './context-request.js';
import { foldOutcomes } from './fold-step.js';
import { nextStep } from './plan-step.js';
import { okResult } from './subagent-results.test.data.js';
import { createSwarmState, type SwarmState } from './swarm-state.js';

const ok = okResult;

function swarm(cleanup: string): ReturnType<typeof parseSwarm> {
  return parseSwarm(`
name: pool
limits:
  cleanup_strategy: ${cleanup}
tasks:
  fan:
    loop: { type: repeat, count: 4 }
    script: { content: 'true' }
  one: { script: { content: 'true' } }
  two: { depends_on: [one], script: { content: 'true' } }
  three: { depends_on: [two], script: { content: 'true' } }
`);
}

/** Runs every step, each folded at a later time; returns the pool's task ids after each step. */
function poolsAfterEachStep(run: SwarmState): string[][] {
  const pools: string[][] = [];
  for (let time = 10; !run.tasks.allFinished(); time += 10) {
    const { instances } = nextStep(run, time);
    foldOutcomes(
      run,
      instances,
      instances.map((item) => ok(`out_${item.task}${item.instance}`)),
      time + 5,
    );
    pools.push(run.pool.entries.map((entry) => entry.taskId));
  }
  return pools;
}

describe('limits.cleanup_strategy trims the context pool after every fold', () => {
  it('most_recent keeps the keep_count last finished', () => {
    const run = createSwarmState(swarm('{ type: most_recent, keep_count: 2 }'));
    const pools = poolsAfterEachStep(run);
    // Step 1 folds fan#0..3 and one at the same time: ties go by task id, and one stays
    // besides them because two, still to run, depends on it.
    expect(pools[0]).toEqual(['fan#0', 'fan#1', 'one']);
    expect(pools[1]).toEqual(['fan#0', 'two']);
    expect(pools[2]).toEqual(['two', 'three']);
    expect(run.pool.lastPrunedAt).toBe(35);
    expect(run.pool.added).toBe(7);
  });

  it('direct_dependencies keeps only outputs some task depends on', () => {
    const run = createSwarmState(swarm('{ type: direct_dependencies }'));
    expect(poolsAfterEachStep(run).at(-1)).toEqual(['one', 'two']);
  });

  it('highest_relevance never drops the output of a direct dependency of a task still to run', () => {
    const run = createSwarmState(
      parseSwarm(`
name: pool
limits:
  cleanup_strategy: { type: highest_relevance, keep_count: 1 }
tasks:
  a: { script: { content: 'echo alpha' } }
  b: { script: { content: 'echo beta' } }
  c: { depends_on: [a], script: { content: 'true' } }
  d: { depends_on: [b], script: { content: 'true' } }
`),
    );
    const first = nextStep(run, 10).instances;
    foldOutcomes(
      run,
      first,
      first.map((item) => ok(`out_${item.task}`)),
      15,
    );
    // a and b tie (relevance 0, same time): keep_count 1 alone would keep a and drop b, which d reads.
    expect(run.pool.entries.map((entry) => entry.taskId)).toEqual(['a', 'b']);
    const second = nextStep(run, 20).instances;
    const plans = planContext({
      definition: run.definition,
      pool: run.pool,
      tasks: contextTasks(run, second),
      now: 20,
    });
    expect(plans.d?.entries.map((entry) => entry.outId)).toContain('out_b');
    expect(plans.c?.entries.map((entry) => entry.outId)).toContain('out_a');
    foldOutcomes(
      run,
      second,
      second.map((item) => ok(`out_${item.task}`)),
      25,
    );
    // Nothing left to run: the strategy applies in full again.
    expect(run.pool.entries).toHaveLength(1);
  });
});
