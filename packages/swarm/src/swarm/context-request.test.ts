import { describe, expect, it } from 'vitest';
import { parseSwarm } from '../dsl/parse-swarm.js';
import { contextLoops, contextRequest, contextTasks } from './context-request.js';
import { foldOutcomes } from './fold-step.js';
import { nextStep } from './plan-step.js';
import { okResult } from './subagent-results.test.data.js';
import { createSwarmState } from './swarm-state.js';

const definition = parseSwarm(`
name: contexts
tasks:
  fetch: { script: { content: 'true' } }
  fan: { loop: { type: repeat, count: 2 }, script: { content: 'true' } }
  report: { depends_on: [fetch, fan], script: { content: 'true' } }
  quiet: { depends_on: [fetch], inject_context: false, script: { content: 'true' } }
  none: { depends_on: [fetch], context: { mode: none }, script: { content: 'true' } }
`);

describe('contextRequest', () => {
  it('asks for nothing while the pool is empty and no loop has folded', () => {
    const state = createSwarmState(definition);
    const { instances } = nextStep(state, 1);
    expect(contextRequest(state, instances, 1)).toBeUndefined();
  });

  it('asks for the tasks that take a context, with the pool and the loops folded so far', () => {
    const state = createSwarmState(definition);
    const first = nextStep(state, 1).instances;
    foldOutcomes(
      state,
      first,
      first.map((item) => okResult(`out_${item.task}${item.instance}`)),
      2,
    );
    const { instances } = nextStep(state, 3);
    expect(contextTasks(state, instances)).toEqual(['report']);
    expect(contextLoops(state)).toEqual({ fan: { ok: 2 } });
    const request = contextRequest(state, instances, 3);
    expect(request).toMatchObject({ tasks: ['report'], now: 3, loops: { fan: { ok: 2 } } });
    expect(request?.pool).toBe(state.pool);
    // Tasks that take no context make no request.
    expect(
      contextRequest(
        state,
        instances.filter((item) => item.task !== 'report'),
        3,
      ),
    ).toBeUndefined();
  });

  it('asks nothing for instances a re-run reuses: they do not run', () => {
    const state = createSwarmState(definition, { reuse: { report: [okResult('out_report')] } });
    const first = nextStep(state, 1).instances;
    foldOutcomes(
      state,
      first,
      first.map((item) => okResult(`out_${item.task}${item.instance}`)),
      2,
    );
    const { instances } = nextStep(state, 3);
    expect(instances.map((item) => item.task)).toContain('report');
    expect(contextRequest(state, instances, 3)).toBeUndefined();
  });
});
