import type {
  PlanContextInput,
  ReusedResults,
  SubagentCall,
  SubagentResult,
  SwarmContextMetrics,
} from '@wharf/swarm';
import {
  createSwarmState,
  isReusedLoop,
  orderedCompacts,
  parseSwarm,
  planRerun,
  remainingReuse,
  reusedResult,
  type SwarmState,
  swarmProgress,
} from '@wharf/swarm';
import { describe, expect, it } from 'vitest';
import { okResult } from './subagent-results.test.data.js';
import { driveSwarm, type SwarmPort } from './swarm-driver.js';

// A re-run folds the results it reuses through the fold, as if the tasks had run: the tasks
// that run again see exactly the inputs, IN_REFS, channels and context they saw the first time.

const definition = parseSwarm(`
name: reuse
channels:
  findings: { type: topic }
tasks:
  list: { script: { content: 'true' }, output: †data.list }
  each:
    depends_on: [list]
    loop: { type: map, over: †data.list.preview }
    script: { content: 'true' }
    output: †channels.findings
  audit: { script: { content: 'true' }, output: †data.audit }
  report:
    depends_on: [each, audit]
    inputs: { findings: †channels.findings, audit: †data.audit.outId, first: †data.list.preview }
    script: { content: 'true' }
`);

const metrics: SwarmContextMetrics = {
  totalBytes: 0,
  taskCount: 0,
  truncatedCount: 0,
  externalCount: 0,
  avgRelevance: 0,
  lastPrunedAt: null,
};

/** Runs every instance at once with a fixed result per label; records calls and results by task and instance. */
function recordingPort(results: (call: SubagentCall) => SubagentResult) {
  const calls: SubagentCall[] = [];
  const folded: ReusedResults = {};
  const contexts: PlanContextInput[] = [];
  let clock = 1_000;
  let parts = 0;
  const port: SwarmPort = {
    now: () => clock,
    async runInstance(call) {
      calls.push(call);
      clock += 1;
      const result = results(call);
      const list = (folded[call.input.task] ?? []) as SubagentResult[];
      list[call.input.instance] = result;
      folded[call.input.task] = list;
      return result;
    },
    indexItems: async (input) => ({ error: `no stored list ${input.source} here` }),
    // Out ids by position: a re-run stores its loops' parts under the same ids as the first run.
    writeManifestPart: async () => `out_part_${parts++}`,
    planContext: async (input) => {
      contexts.push(structuredClone(input));
      return Object.fromEntries(
        input.tasks.map((task) => [task, { entries: [], maxBytes: 100, maxTasks: 10 }]),
      );
    },
    pruneContext: async () => [],
    contextMetrics: async () => metrics,
    supervise: async () => ({ answer: '', evidenceBytes: 0 }),
    waitForChange: async () => false,
    historyFull: () => false,
    shouldContinueAsNew: () => false,
    publish: () => {},
    warn: () => {},
  };
  return { port, calls, folded, contexts };
}

const first = (call: SubagentCall) =>
  call.label === 'list'
    ? okResult('out_list', 'alpha\nbeta\ngamma\n')
    : okResult(`out_${call.label}`, call.label);

/**
 * A value with every `reused` mark left out, and the times outputs entered the pool (a re-run
 * that does not move them, as `reusePoolTimes` does, pools its reused outputs at its own clock).
 */
function unmarked(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value, (key, item: unknown) =>
      key === 'reused' || key === 'pooledAt' ? undefined : item,
    ),
  );
}

async function finish(run: SwarmState, port: SwarmPort) {
  const ending = await driveSwarm(run, port, {
    place: { ownerId: 'team', workflowId: 'wf' },
    maxConcurrent: 10,
    waitForInputsMs: 0,
  });
  if (ending.next !== 'finished') throw new Error('expected the run to finish');
  return ending.result;
}

describe('a re-run that reuses results', () => {
  it('runs only what it re-runs, with the inputs, IN_REFS and channel values of the first run', async () => {
    const before = recordingPort(first);
    const beforeRun = createSwarmState(definition);
    const result = await finish(beforeRun, before.port);
    expect(before.calls.map((call) => call.label)).toEqual([
      'list',
      'audit',
      'each#0',
      'each#1',
      'each#2',
      'report',
    ]);

    const plan = planRerun(
      { definition, inputs: {}, tasks: result.tasks, results: before.folded },
      { definition, inputs: {}, from: 'report' },
    );
    expect(plan.reused).toEqual(['list', 'each', 'audit']);
    expect(plan.rerun).toEqual([{ task: 'report', reason: 'named by --from' }]);

    const after = recordingPort(first);
    const rerun = createSwarmState(definition, { reuse: plan.reuse });
    const again = await finish(rerun, after.port);
    // No process for the reused tasks: only report ran, and it saw what it saw the first time.
    expect(after.calls.map((call) => call.label)).toEqual(['report']);
    const original = before.calls.find((call) => call.label === 'report');
    expect(after.calls[0]?.input.inputs).toEqual(original?.input.inputs);
    expect(after.calls[0]?.input.inRefs).toEqual(original?.input.inRefs);
    // Same outputs, same channels: the reused results were folded as if they had run.
    expect(again.outputs).toEqual(result.outputs);
    // (the results records of reused instances say so, and differ in nothing else)
    expect(unmarked(rerun.channels.snapshot())).toEqual(unmarked(beforeRun.channels.snapshot()));
    expect(orderedCompacts(rerun)).toEqual(orderedCompacts(beforeRun));
    expect(Object.fromEntries(again.tasks.map((task) => [task.task, task.reused]))).toEqual({
      list: 1,
      each: 3,
      audit: 1,
      report: undefined,
    });
  });

  it('runs a map loop again when its list changed, and what depends on it', async () => {
    const before = recordingPort(first);
    const result = await finish(createSwarmState(definition), before.port);
    const plan = planRerun(
      { definition, inputs: {}, tasks: result.tasks, results: before.folded },
      { definition, inputs: {}, from: 'list' },
    );
    expect(plan.reused).toEqual(['audit']);
    const after = recordingPort((call) =>
      call.label === 'list' ? okResult('out_list2', 'alpha\nbeta\n') : okResult(`out2_${call.label}`),
    );
    await finish(createSwarmState(definition, { reuse: plan.reuse }), after.port);
    expect(after.calls.map((call) => call.label)).toEqual(['list', 'each#0', 'each#1', 'report']);
  });

  it('does not hold a reused task at its approval gate: it runs nothing; a task that runs again still waits', async () => {
    const gated = parseSwarm(`
name: gated
tasks:
  build: { script: { content: 'true' }, approval: { prompt: Build? } }
  ship: { depends_on: [build], script: { content: 'true' }, approval: { prompt: Ship? } }
`);
    const { port, calls } = recordingPort((call) => okResult(`out_${call.label}`));
    // The first wait is for a person at a gate: stop driving there and look at the state.
    const atGate = new Error('waiting for a person');
    port.waitForChange = async () => {
      throw atGate;
    };
    const run = createSwarmState(gated, { reuse: { build: [okResult('out_build')] } });
    await expect(
      driveSwarm(run, port, {
        place: { ownerId: 'team', workflowId: 'wf' },
        maxConcurrent: 10,
        waitForInputsMs: 0,
      }),
    ).rejects.toBe(atGate);
    // build folded from the earlier run with no gate; ship, which runs again, waits at its own.
    expect(calls).toEqual([]);
    const tasks = swarmProgress(run).tasks;
    expect(tasks.map((task) => [task.task, task.status])).toEqual([
      ['build', 'done'],
      ['ship', 'waiting'],
    ]);
    expect(tasks[1]?.approval).toBeDefined();
  });

  it('runs a reused task after all when its results do not cover its instances now', () => {
    const run = createSwarmState(definition, {
      reuse: { list: [okResult('out_list', 'a\n')], each: [okResult('out_e0')] },
    });
    expect(reusedResult(run, { task: 'list', instance: 0 })).toEqual({
      ...okResult('out_list', 'a\n'),
      reused: true,
    });
    // each's map loop has not started: no instance count yet, nothing to reuse.
    expect(reusedResult(run, { task: 'each', instance: 0 })).toBeUndefined();
    expect(reusedResult(run, { task: 'audit', instance: 0 })).toBeUndefined();
    expect(remainingReuse(run)).toEqual({ list: [okResult('out_list', 'a\n')], each: [okResult('out_e0')] });
  });

  it('reuses a wide loop whole, from its summary and manifest: what it carries does not grow with the loop', async () => {
    const wide = (count: number) =>
      parseSwarm(`
name: wide-reuse
tasks:
  fan: { loop: { type: repeat, count: ${count} }, script: { content: 'true' }, output: †data.each }
  report:
    depends_on: [fan]
    inputs: { each: †data.each }
    script: { content: 'true' }
`);
    const sizes: number[] = [];
    for (const count of [100, 1_000]) {
      const definition = wide(count);
      const before = recordingPort((call) => okResult(`out_${call.label}`, call.label));
      const result = await finish(createSwarmState(definition), before.port);
      // No per-instance result of the wide loop is read: its summary and manifest are enough.
      const { fan: _notRead, ...results } = before.folded;
      const plan = planRerun(
        { definition, inputs: {}, tasks: result.tasks, results },
        { definition, inputs: {}, from: 'report' },
      );
      expect(plan.reused).toEqual(['fan']);
      const reused = plan.reuse.fan;
      expect(isReusedLoop(reused) ? reused.loop : reused).toMatchObject({
        total: count,
        manifest: result.manifests?.fan,
        outCount: count,
        outIds: [],
      });
      sizes.push(JSON.stringify(plan.reuse).length);

      const after = recordingPort((call) => okResult(`out2_${call.label}`, call.label));
      const again = await finish(createSwarmState(definition, { reuse: plan.reuse }), after.port);
      // Only report ran, with the inputs and IN_REFS (the loop's manifest) of the first run.
      expect(after.calls.map((call) => call.label)).toEqual(['report']);
      const original = before.calls.find((call) => call.label === 'report');
      expect(after.calls[0]?.input.inputs).toEqual(original?.input.inputs);
      expect(after.calls[0]?.input.inRefs).toEqual(original?.input.inRefs);
      expect(again.manifests?.fan).toBe(result.manifests?.fan);
      // Its context is asked of the pool the run's was: the loop's newest outputs, at their times.
      const asked = (contexts: PlanContextInput[]) =>
        contexts.filter((input) => input.tasks.includes('report')).map((input) => input.pool);
      expect(asked(after.contexts)).toEqual(asked(before.contexts));
      expect(asked(after.contexts)[0]?.entries.map((entry) => entry.taskId)).toEqual(
        Array.from({ length: 10 }, (_, index) => `fan#${count - 10 + index}`),
      );
      const fan = again.tasks.find((task) => task.task === 'fan');
      expect(fan).toMatchObject({ status: 'done', instances: { done: count, total: count }, reused: count });
    }
    // A loop reused whole that no longer covers its instances runs them all.
    const definition = wide(100);
    const { port, calls } = recordingPort((call) => okResult(`out_${call.label}`));
    const stale = { loop: { total: 90, manifest: 'out_old', bytes: 0, outCount: 90, outIds: [] } };
    const ran = await finish(createSwarmState(definition, { reuse: { fan: stale } }), port);
    expect(calls).toHaveLength(101);
    expect(ran.tasks.find((task) => task.task === 'fan')?.reused).toBeUndefined();
    expect(ran.manifests?.fan).not.toBe('out_old');
    // Ten times the instances, the same re-run input but for the counts' digits (and the labels
    // and out ids of the ten pooled outputs it carries, never one per instance).
    expect(sizes[0]).toBeLessThan(800);
    expect(sizes[1]).toBeLessThanOrEqual((sizes[0] as number) + 8 + 2 * 10);
  });
});
