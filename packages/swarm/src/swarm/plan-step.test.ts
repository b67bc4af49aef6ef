import { describe, expect, it } from 'vitest';
import { parseSwarm } from '../dsl/parse-swarm.js';
import { applyWrites, foldStep } from './fold-step.js';
import { applyPlan, planStep } from './plan-step.js';
import { okResult } from './subagent-results.test.data.js';
import { carriedState, createSwarmState, type SwarmState } from './swarm-state.js';

const definition = parseSwarm(`
name: plans
tasks:
  list: { script: { content: 'true' }, output: †data.list }
  each:
    depends_on: [list]
    loop: { type: map, over: †data.list.preview }
    script: { content: 'true' }
  after: { depends_on: [each], script: { content: 'true' } }
  greet: { inputs: { who: †input.who }, script: { content: 'true' } }
  deploy:
    approval: { timeout: 1s, on_timeout: reject }
    script: { content: 'true' }
  announce: { depends_on: [deploy], script: { content: 'true' } }
`);

const ok = okResult;

/** Everything the state holds, as continue-as-new would carry it. */
function everything(state: SwarmState): string {
  return JSON.stringify(carriedState(state, state.resume));
}

describe('planStep', () => {
  it('plans without changing the state; applyPlan is what makes the plan happen', () => {
    const state = createSwarmState(definition);
    const before = everything(state);
    const plan = planStep(state, 10);
    expect(everything(state)).toBe(before);
    expect(plan.transitions).toEqual([
      { task: 'list', event: { type: 'start' } },
      { task: 'greet', event: { type: 'wait', waitingFor: ['†input.who'] } },
      { task: 'deploy', event: { type: 'gate', gate: definition.tasks.deploy?.approval } },
    ]);
    expect(plan.instances).toEqual([{ task: 'list', instance: 0, inputs: {} }]);
    expect(planStep(state, 10)).toEqual(plan);
    applyPlan(state, plan, 10);
    expect(state.tasks.get('list')).toMatchObject({ status: 'running', startedAt: 10 });
    expect(state.tasks.get('deploy')).toMatchObject({ status: 'waiting', approval: { deadline: 1_010 } });
  });

  it('decides a gate past its deadline first, so the task and its dependents are skipped in the same plan', () => {
    const state = createSwarmState(definition);
    applyPlan(state, planStep(state, 10), 10);
    const plan = planStep(state, 1_010);
    expect(plan.transitions[0]).toEqual({
      task: 'deploy',
      event: { type: 'expire', gate: definition.tasks.deploy?.approval },
    });
    expect(plan.transitions).toContainEqual({
      task: 'announce',
      event: { type: 'skip', reason: 'dependency deploy skipped' },
    });
    applyPlan(state, plan, 1_010);
    expect(state.tasks.get('deploy')).toMatchObject({ status: 'skipped', reason: 'rejected by timeout' });
  });

  it('ends a map loop over an empty list at once, releases its dependents and asks to plan again', () => {
    const state = createSwarmState(definition);
    const first = planStep(state, 10);
    applyPlan(state, first, 10);
    state.step += 1;
    applyWrites(state, foldStep(state, first.instances, [ok('out_list', '\n')], 20), 20);
    const plan = planStep(state, 30);
    expect(plan.transitions.filter((transition) => transition.task === 'each')).toEqual([
      { task: 'each', event: { type: 'start', total: 0 } },
      { task: 'each', event: { type: 'end' } },
    ]);
    expect(plan.replan).toBe(true);
    expect(plan.consumed).toEqual(['join:each']);
    applyPlan(state, plan, 30);
    expect(state.tasks.get('each')).toMatchObject({ status: 'done', total: 0, endedAt: 30 });
    expect(planStep(state, 30).instances).toEqual([{ task: 'after', instance: 0, inputs: {} }]);
  });
});

describe('foldStep', () => {
  it('folds without changing the state: results, compacts, outputs and pool entries in task order', () => {
    const state = createSwarmState(definition);
    const plan = planStep(state, 10);
    applyPlan(state, plan, 10);
    state.step += 1;
    const before = everything(state);
    const writes = foldStep(state, plan.instances, [ok('out_list', 'a\nb\n')], 20);
    expect(everything(state)).toBe(before);
    expect(writes.transitions).toEqual([{ task: 'list', event: { type: 'end' } }]);
    expect(writes.compacts).toEqual([['list', 'out_list']]);
    expect(writes.pooled).toEqual([{ taskId: 'list', task: 'list', outId: 'out_list', agent: undefined }]);
    expect(writes.outputs.map((output) => [output.task, output.output])).toEqual([['list', '†data.list']]);
    expect(() => foldStep(state, plan.instances, [], 20)).toThrow('fold got 0 outcomes for 1 instances');
    applyWrites(state, writes, 20);
    expect(state.tasks.get('list')).toMatchObject({ status: 'done', endedAt: 20 });
    expect(state.channels.get('results:list')).toMatchObject({
      done: 1,
      ok: 1,
      outIds: ['out_list'],
      outCount: 1,
      main: 'out_list',
      bytes: 1,
      exitCode: 0,
    });
    expect(state.channels.isReady('join:each')).toBe(true);
  });
});
