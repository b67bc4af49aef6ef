import { describe, expect, it } from 'vitest';
import type { ContextPool } from '../contracts/relevance-pool-contracts.js';
import type { ReusedLoop } from '../contracts/swarm-contracts.js';
import { parseSwarm } from '../dsl/parse-swarm.js';
import { planContext } from '../relevance-pool/plan-context.js';
import { POOL_PER_LOOP } from './context-pool.js';
import { contextRequest } from './context-request.js';
import { foldOutcomes } from './fold-step.js';
import { nextStep } from './plan-step.js';
import { planRerun } from './rerun-plan.js';
import { reusePoolTimes } from './reuse-pool-times.js';
import { okResult } from './subagent-results.test.data.js';
import { swarmProgress } from './swarm-report.js';
import { createSwarmState, reusedResult, type SwarmState } from './swarm-state.js';

// A loop wider than REUSED_WHOLE_FROM is reused whole by a re-run: the context of a task that
// runs again after it must hold what the run's did, the loop's newest pooled outputs included.
const WIDTH = 70;
const definition = parseSwarm(`
name: wide-context
tasks:
  base: { script: { content: 'true' } }
  fan: { depends_on: [base], loop: { type: repeat, count: ${WIDTH} }, script: { content: 'true' } }
  report: { depends_on: [fan], script: { content: 'true' } }
`);

/** Runs every ready instance at `now` and folds it `ok` a second later (a reused one as reused). */
function runStep(state: SwarmState, now: number, outcome = (label: string) => okResult(`out_${label}`)) {
  const { instances } = nextStep(state, now);
  foldOutcomes(
    state,
    instances,
    instances.map((item) => reusedResult(state, item) ?? outcome(`${item.task}${item.instance}`)),
    now + 1_000,
  );
}

/** The run: base, then the wide loop; then the report's context request and plan. */
function originalRun() {
  const state = createSwarmState(definition);
  runStep(state, 1_000);
  runStep(state, 3_000);
  const { instances } = nextStep(state, 5_000);
  expect(instances.map((item) => item.task)).toEqual(['report']);
  const request = contextRequest(state, instances, 5_000);
  return { state, request, plans: request === undefined ? {} : planContext(request) };
}

describe('a loop a re-run reuses whole', () => {
  it('records its newest pooled outputs with their times in its progress', () => {
    const { state } = originalRun();
    const fan = swarmProgress(state).tasks.find((task) => task.task === 'fan');
    expect(fan?.pooledCount).toBe(WIDTH);
    expect(fan?.pooled).toHaveLength(POOL_PER_LOOP);
    expect(fan?.pooled?.at(-1)).toEqual({
      taskId: `fan#${WIDTH - 1}`,
      outId: `out_fan${WIDTH - 1}`,
      pooledAt: 4_000,
    });
    // Exactly what the run's pool holds for the loop.
    expect(fan?.pooled).toEqual(
      state.pool.entries
        .filter((entry) => entry.task === 'fan')
        .map(({ taskId, outId, completedAt }) => ({ taskId, outId, pooledAt: completedAt })),
    );
  });

  it("pools what the run's pool held for it, so a task run again gets the run's context", () => {
    const original = originalRun();
    expect(original.plans.report?.entries).toHaveLength(POOL_PER_LOOP);

    // The re-run from report: base reused per instance, fan whole (its manifest stored by the run).
    const tasks = swarmProgress(original.state).tasks.map((task) =>
      task.task === 'fan' ? { ...task, manifest: 'out_manifest' } : task,
    );
    const plan = planRerun(
      { definition, inputs: {}, tasks, results: { base: [okResult('out_base0')] } },
      { definition, inputs: {}, from: 'report' },
    );
    const shift = 100_000;
    const reuse = reusePoolTimes(plan.reuse, tasks, 4_000 + shift);
    const fan = reuse.fan as ReusedLoop;
    expect(fan.loop.pooled).toHaveLength(POOL_PER_LOOP);
    expect(fan.loop.pooled?.every((output) => output.pooledAt === 4_000 + shift)).toBe(true);

    const state = createSwarmState(definition, { reuse });
    runStep(state, 1_000 + shift);
    const { instances } = nextStep(state, 5_000 + shift);
    expect(instances.map((item) => item.task)).toEqual(['report']);
    const request = contextRequest(state, instances, 5_000 + shift);

    // The pool holds the run's entries, at the run's times moved by the shift, in the same order.
    const entries = (pool: ContextPool | undefined, by = 0) =>
      (pool?.entries ?? []).map(({ taskId, outId, completedAt }) => ({
        taskId,
        outId,
        at: completedAt - by,
      }));
    expect(entries(request?.pool, shift)).toEqual(entries(original.request?.pool));
    expect(entries(request?.pool).filter((entry) => entry.taskId.startsWith('fan#'))).toHaveLength(
      POOL_PER_LOOP,
    );
    expect(request?.pool.added).toBe(original.request?.pool.added);
    expect(request?.loops).toEqual({ fan: { ok: WIDTH, manifest: 'out_manifest' } });
    // The report's context is the run's: same entries, same order, same relevance.
    expect(planContext(request as NonNullable<typeof request>).report?.entries).toEqual(
      original.plans.report?.entries,
    );
  });

  it('pools nothing for a loop from a run that recorded no pooled outputs', () => {
    const loop = { total: WIDTH, manifest: 'out_m', bytes: WIDTH, outCount: WIDTH, outIds: [] };
    const state = createSwarmState(definition, { reuse: { base: [okResult('out_base0')], fan: { loop } } });
    runStep(state, 1_000);
    nextStep(state, 3_000);
    expect(state.pool.entries.map((entry) => entry.task)).toEqual(['base']);
  });
});
