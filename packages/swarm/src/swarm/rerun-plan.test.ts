import { describe, expect, it } from 'vitest';
import type { SubagentResult } from '../contracts/agent-contracts.js';
import type { TaskProgress } from '../contracts/progress-contracts.js';
import { parseSwarm } from '../dsl/parse-swarm.js';
import { WharfOrchestratorError } from '../orchestrator-error.js';
import { canonicalJson, checkRerunFrom, planRerun, type RerunSource } from './rerun-plan.js';
import { okResult } from './subagent-results.test.data.js';

const yaml = `
name: etl
agents:
  writer: { model: echo }
tasks:
  fetch: { script: { content: ./fetch.sh }, output: †data.fetch }
  clean:
    depends_on: [fetch]
    inputs: { raw: †data.fetch.outId, region: †input.region }
    script: { content: ./clean.sh }
  lint: { script: { content: ./lint.sh } }
  report: { agent: writer, depends_on: [clean, lint], prompt: Report. }
  publish: { depends_on: [report], script: { content: ./publish.sh } }
`;
const definition = parseSwarm(yaml);

function ended(
  status: TaskProgress['status'],
  total = 1,
): Pick<TaskProgress, 'task' | 'status' | 'instances'> & {
  task: string;
} {
  return { task: '', status, instances: { done: total, total } };
}

function source(overrides: Partial<RerunSource> = {}): RerunSource {
  const statuses: Record<string, TaskProgress['status']> = {
    fetch: 'done',
    clean: 'done',
    lint: 'done',
    report: 'done',
    publish: 'done',
  };
  return {
    definition,
    inputs: { region: 'eu' },
    tasks: Object.entries(statuses).map(([task, status]) => ({ ...ended(status), task })),
    results: Object.fromEntries(Object.keys(statuses).map((task) => [task, [okResult(`out_${task}`)]])),
    ...overrides,
  };
}

describe('planRerun', () => {
  it('runs the task named and everything downstream again; reuses the rest with their results', () => {
    const plan = planRerun(source(), { definition, inputs: { region: 'eu' }, from: 'clean' });
    expect(plan.rerun).toEqual([
      { task: 'clean', reason: 'named by --from' },
      { task: 'report', reason: 'depends on clean' },
      { task: 'publish', reason: 'depends on report' },
    ]);
    expect(plan.reused).toEqual(['fetch', 'lint']);
    expect(plan.reuse).toEqual({ fetch: [okResult('out_fetch')], lint: [okResult('out_lint')] });
  });

  it('runs again what did not end done, what changed, what reads a changed input, and what is new', () => {
    const edited = parseSwarm(
      `${yaml.replace('./lint.sh', './lint.sh --strict')}  extra: { script: { content: echo } }\n`,
    );
    const failedFetch = source({
      tasks: source().tasks.map((task) => (task.task === 'fetch' ? { ...task, status: 'failed' } : task)),
    });
    const plan = planRerun(failedFetch, { definition: edited, inputs: { region: 'us' }, from: 'publish' });
    expect(Object.fromEntries(plan.rerun.map(({ task, reason }) => [task, reason]))).toEqual({
      fetch: 'it ended failed',
      clean: 'it reads †input.region, which changed',
      lint: 'its definition changed',
      report: 'depends on clean',
      publish: 'named by --from',
      extra: 'new in the definition',
    });
    expect(plan.reused).toEqual([]);

    const inputOnly = planRerun(source(), { definition, inputs: { region: 'us' }, from: 'publish' });
    expect(inputOnly.rerun.find((entry) => entry.task === 'clean')?.reason).toBe(
      'it reads †input.region, which changed',
    );
    expect(inputOnly.reused).toEqual(['fetch', 'lint']);
  });

  it("runs again an agent's tasks when the agent changed, and a task whose results are not all recorded", () => {
    const otherModel = parseSwarm(yaml.replace('model: echo', 'model: "openai:gpt-4o-mini"'));
    const missing: Record<string, SubagentResult[]> = { ...source().results, fetch: [] };
    const plan = planRerun(source({ results: missing }), {
      definition: otherModel,
      inputs: { region: 'eu' },
      from: 'publish',
    });
    expect(Object.fromEntries(plan.rerun.map(({ task, reason }) => [task, reason]))).toMatchObject({
      fetch: 'its results are not all recorded in the run',
      report: 'its definition changed',
    });
    expect(plan.reused).toEqual(['lint']);
  });

  it('refuses a task the swarm does not have, naming those it has', () => {
    try {
      planRerun(source(), { definition, inputs: {}, from: 'reprot' });
      throw new Error('expected a refusal');
    } catch (error) {
      expect(WharfOrchestratorError.isInstance(error) && error.code).toBe('INVALID_REQUEST');
      expect((error as Error).message).toBe(
        'cannot re-run from "reprot": the swarm has no such task; tasks: fetch, clean, lint, report, publish',
      );
    }
  });
});

describe('planRerun without a task named', () => {
  const gated = parseSwarm(`
name: gated
tasks:
  fetch: { script: { content: ./fetch.sh } }
  notify: { when: "†input.notify == 'yes'", script: { content: ./notify.sh } }
  each:
    loop: { type: map, over: †input.items }
    script: { content: ./each.sh }
  clean: { depends_on: [fetch], inputs: { region: †input.region }, script: { content: ./clean.sh } }
  report: { depends_on: [clean], script: { content: ./report.sh } }
  lint: { script: { content: ./lint.sh } }
`);
  const inputs = { region: 'eu', notify: 'no', items: ['a'] };
  const run = source({
    definition: gated,
    inputs,
    tasks: Object.keys(gated.tasks).map((task) => ({ ...ended('done'), task })),
    results: Object.fromEntries(Object.keys(gated.tasks).map((task) => [task, [okResult(`out_${task}`)]])),
  });

  it('runs again exactly the tasks reading a changed input (inputs, when:, a map over) and what depends on them', () => {
    const region = planRerun(run, { definition: gated, inputs: { ...inputs, region: 'us' } });
    expect(region.rerun).toEqual([
      { task: 'clean', reason: 'it reads †input.region, which changed' },
      { task: 'report', reason: 'depends on clean' },
    ]);
    expect(region.reused).toEqual(['fetch', 'notify', 'each', 'lint']);
    expect(region.reuse.fetch).toEqual([okResult('out_fetch')]);

    const gate = planRerun(run, {
      definition: gated,
      inputs: { ...inputs, notify: 'yes', items: ['a', 'b'] },
    });
    expect(gate.rerun).toEqual([
      { task: 'notify', reason: 'it reads †input.notify, which changed' },
      { task: 'each', reason: 'it reads †input.items, which changed' },
    ]);
  });

  it('refuses a re-run in which nothing would run again, saying what did not change', () => {
    expect(() => planRerun(run, { definition: gated, inputs })).toThrow(
      "nothing to re-run: no input changed, no task's definition changed and every task ended done; name a task to run again (--from)",
    );
    expect(() => planRerun(run, { definition: gated, inputs: { ...inputs, unused: 1 } })).toThrow(
      'nothing to re-run: no task reads †input.unused,',
    );
  });

  it('checks a task name against the definition alone, before any run is read', () => {
    expect(() => checkRerunFrom(Object.keys(gated.tasks), 'clean')).not.toThrow();
    expect(() => checkRerunFrom(Object.keys(gated.tasks), 'claen')).toThrow(
      'cannot re-run from "claen": the swarm has no such task; tasks: fetch, notify, each, clean, report, lint',
    );
  });
});

describe('planRerun of a wide loop', () => {
  const wide = parseSwarm(`
name: wide
tasks:
  fan: { loop: { type: repeat, count: 500 }, script: { content: 'true' }, output: †data.each }
  tagged: { loop: { type: repeat, count: 500 }, script: { content: 'true' }, output: †channels.seen }
  small: { loop: { type: repeat, count: 3 }, script: { content: 'true' } }
  report: { depends_on: [fan, tagged, small], script: { content: 'true' } }
channels:
  seen: { type: topic }
`);
  const done = (task: string, total: number, extra: Partial<TaskProgress> = {}) => ({
    task,
    status: 'done' as const,
    instances: { done: total, total },
    ...extra,
  });
  const usage = { inputTokens: 10, outputTokens: 5, totalTokens: 15, calls: 2 };
  const perInstance = (count: number) =>
    Array.from({ length: count }, (_, index) => okResult(`out_${index}`));

  it('reuses it whole from its progress, reading no result of it; a small or channel-writing loop instance by instance', () => {
    const plan = planRerun(
      {
        definition: wide,
        inputs: {},
        tasks: [
          done('fan', 500, { manifest: 'out_m', bytesCaptured: 9_000, outIds: [], outCount: 500, usage }),
          done('tagged', 500, { manifest: 'out_t' }),
          done('small', 3, { manifest: 'out_s' }),
          done('report', 1),
        ],
        results: { tagged: perInstance(500), small: perInstance(3) },
      },
      { definition: wide, inputs: {}, from: 'report' },
    );
    expect(plan.reused).toEqual(['fan', 'tagged', 'small']);
    expect(plan.reuse.fan).toEqual({
      loop: { total: 500, manifest: 'out_m', bytes: 9_000, outCount: 500, outIds: [], usage },
    });
    expect(plan.reuse.tagged).toHaveLength(500);
    expect(plan.reuse.small).toHaveLength(3);
  });

  it('runs it again when it has no manifest or did not end done, and a loop a re-run reused whole is reused from its own progress', () => {
    const plan = planRerun(
      {
        definition: wide,
        inputs: {},
        tasks: [
          // A re-run's own whole loop: its progress carries the earlier manifest as its own.
          done('fan', 500, {
            manifest: 'out_m',
            bytesCaptured: 9_000,
            outIds: [],
            outCount: 500,
            reused: 500,
          }),
          { ...done('tagged', 500), status: 'failed' },
          done('small', 3),
          done('report', 1),
        ],
        results: {
          // What that re-run started with is not passed on: the progress says the same.
          fan: { loop: { total: 400, manifest: 'out_old', bytes: 1, outCount: 400, outIds: [] } },
          small: perInstance(3),
        },
      },
      { definition: wide, inputs: {}, from: 'report' },
    );
    expect(plan.reuse.fan).toMatchObject({ loop: { total: 500, manifest: 'out_m' } });
    expect(Object.fromEntries(plan.rerun.map(({ task, reason }) => [task, reason]))).toEqual({
      tagged: 'it ended failed',
      report: 'named by --from',
    });
  });
});

describe('canonicalJson', () => {
  it('gives equal text for equal values whatever their key order', () => {
    expect(canonicalJson({ b: 1, a: [2, { d: 3, c: 4 }] })).toBe('{"a":[2,{"c":4,"d":3}],"b":1}');
    expect(canonicalJson({ x: 1, y: 2 })).toBe(canonicalJson({ y: 2, x: 1 }));
    expect(canonicalJson(undefined)).toBe('undefined');
  });
});
