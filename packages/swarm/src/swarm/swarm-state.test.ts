import { describe, expect, it } from 'vitest';
import type { SubagentResult } from '../contracts/agent-contracts.js';
import type { StoredListValue } from '../contracts/stored-list.js';
import type { CarriedState } from '../contracts/swarm-contracts.js';
import { parseSwarm } from '../dsl/parse-swarm.js';
import { WharfOrchestratorError } from '../orchestrator-error.js';
import { subagentCall } from './activity-calls.js';
import { applyPrune, duePrunes, markRead } from './context-pool.js';
import { foldOutcomes } from './fold-step.js';
import { failUnresolved, nextStep, type ScheduledInstance } from './plan-step.js';
import { FakeResultsStore } from './subagent-results.test.data.js';
import { addInputs, checkInputs } from './swarm-inputs.js';
import { orderedCompacts, swarmOutputs, swarmProgress, swarmResult } from './swarm-report.js';
import { carriedState, createSwarmState, type SwarmState, taskSpec } from './swarm-state.js';
import { taskCounts } from './task-counts.js';
import { cancelTask } from './task-requests.js';

const definition = parseSwarm(`
name: core
tasks:
  fetch:
    script: { content: 'true' }
    output: †data.fetch || †data.fetch_error
  count:
    depends_on: [fetch]
    loop: { type: repeat, count: 3 }
    inputs: { source: †data.fetch.outId }
    script: { content: 'true' }
    output: †data.counts
  report:
    depends_on: [count]
    inputs: { counts: †data.counts }
    script: { content: 'true' }
  on_fetch_error:
    depends_on: [fetch]
    inputs: { message: †data.fetch_error.message }
    script: { content: 'true' }
`);

const place = { ownerId: 'owner', workflowId: 'wf-1' };

function ok(outId: string, bytes = 10): SubagentResult {
  return {
    status: 'ok',
    outputs: [{ outId }],
    compact: `compact of ${outId}`,
    bytes,
    exitCode: 0,
    durationMs: 1,
    preview: `preview of ${outId}`,
  };
}

function failed(stderrTail: string, exitCode = 3): SubagentResult {
  return {
    status: 'failed',
    outputs: [{ outId: 'out_err' }],
    compact: 'failed',
    bytes: 5,
    exitCode,
    durationMs: 1,
    preview: '',
    stderrTail,
  };
}

function statuses(run: SwarmState): Record<string, string> {
  return Object.fromEntries(swarmProgress(run).tasks.map((task) => [task.task, task.status]));
}

/** Runs steps until `count` is scheduled; returns its instances. */
function upToCount(run: SwarmState): ScheduledInstance[] {
  const first = nextStep(run, 1_000).instances;
  foldOutcomes(run, first, [ok('out_fetch')], 1_100);
  return nextStep(run, 1_200).instances;
}

describe('swarm state: planning', () => {
  it('runs first only the tasks without dependencies, and counts the step', () => {
    const run = createSwarmState(definition);
    const { instances, lostInputs } = nextStep(run, 1_000);
    expect(instances).toEqual([{ task: 'fetch', instance: 0, inputs: {} }]);
    expect(lostInputs).toEqual([]);
    expect(run.step).toBe(1);
    expect(statuses(run)).toEqual({
      fetch: 'running',
      count: 'pending',
      report: 'pending',
      on_fetch_error: 'pending',
    });
    expect(swarmProgress(run).tasks[0]).toMatchObject({ startedAt: 1_000, waitingFor: [] });
  });

  it('schedules every loop instance with its resolved inputs once the dependency arrived', () => {
    const run = createSwarmState(definition);
    const instances = upToCount(run);
    expect(instances).toEqual(
      [0, 1, 2].map((instance) => ({ task: 'count', instance, inputs: { source: 'out_fetch' } })),
    );
    expect(run.step).toBe(2);
    expect(swarmProgress(run).tasks.find((task) => task.task === 'fetch')).toMatchObject({
      status: 'done',
      endedAt: 1_100,
      outIds: ['out_fetch'],
      instances: { done: 1, total: 1 },
    });
    // The untaken failure branch can no longer be written: its reader is skipped, not left waiting.
    expect(swarmProgress(run).tasks.find((task) => task.task === 'on_fetch_error')).toMatchObject({
      status: 'skipped',
      reason: 'input †data.fetch_error.message can no longer be written (fetch done)',
      endedAt: 1_200,
    });
  });

  it('plans nothing while a task waits for an input; an added input makes it ready', () => {
    const gated = parseSwarm(`
name: gated
tasks:
  greet: { inputs: { who: †input.who }, script: { content: 'true' } }
`);
    const run = createSwarmState(gated);
    expect(nextStep(run, 1).instances).toEqual([]);
    expect(run.step).toBe(0);
    expect(swarmProgress(run).tasks[0]).toMatchObject({ status: 'waiting', waitingFor: ['†input.who'] });
    run.context.addInput('who', 'wharf', '2026-01-01T00:00:00.000Z');
    expect(nextStep(run, 2).instances).toEqual([{ task: 'greet', instance: 0, inputs: { who: 'wharf' } }]);
  });

  it('addInputs refuses a key already set (at start or added), whole, unless replace', () => {
    const gated = parseSwarm(`
name: gated
tasks:
  greet: { inputs: { who: †input.who, where: †input.where }, script: { content: 'true' } }
`);
    const run = createSwarmState(gated, { input: { where: 'here' } });
    const date = '2026-01-01T00:00:00.000Z';
    expect(addInputs(run, { values: { who: 'wharf' } }, date)).toEqual({ added: ['who'], replaced: [] });
    expect(() => addInputs(run, { values: { who: 'again', extra: 1 } }, date)).toThrow(
      '†input.who is already set; replace it explicitly',
    );
    expect(() => checkInputs(run, { values: { where: 'there' } })).toThrow('†input.where is already set');
    expect(() => checkInputs(run, { values: {} })).toThrow('no input values given');
    expect(addInputs(run, { values: { who: 'crew', extra: 1 }, replace: true }, date)).toEqual({
      added: ['extra'],
      replaced: ['who'],
    });
    expect(nextStep(run, 2).instances).toEqual([
      { task: 'greet', instance: 0, inputs: { who: 'crew', where: 'here' } },
    ]);
  });
});

describe('swarm state: folding', () => {
  it('folds in the order of the instances, whatever order they finished in', () => {
    const run = createSwarmState(definition);
    const instances = upToCount(run);
    foldOutcomes(run, instances, [ok('out_c0', 1), ok('out_c1', 2), ok('out_c2', 4)], 2_000);
    const results = new FakeResultsStore();
    results.store(run, 2_050);
    expect(swarmOutputs(run).count).toEqual(['out_c0', 'out_c1', 'out_c2']);
    expect(swarmProgress(run).tasks.find((task) => task.task === 'count')).toMatchObject({
      status: 'done',
      instances: { done: 3, total: 3 },
      bytesCaptured: 7,
    });
    expect(swarmResult(run, {}).metrics.totalBytes).toBe(17);
    // The loop's values are one stored list, its records in instance order; the join reads them in that order.
    const [report] = nextStep(run, 2_100).instances;
    const counts = report?.inputs.counts as StoredListValue;
    expect(counts).toEqual({ $manifest: 'out_count_manifest', count: 3, status: 'ok' });
    expect(results.values(counts).map((value) => value.outId)).toEqual(['out_c0', 'out_c1', 'out_c2']);
    // IN_REFS: every out id of the dependencies, from the results channel.
    expect(subagentCall(run, report as ScheduledInstance, place, undefined).input.inRefs).toEqual([
      'out_c0',
      'out_c1',
      'out_c2',
    ]);
    expect(orderedCompacts(run)).toEqual([
      'compact of out_fetch',
      'compact of out_c0',
      'compact of out_c1',
      'compact of out_c2',
    ]);
  });

  it('keeps a summary of each task in its results channel and a loop’s records in the store', () => {
    const run = createSwarmState(definition);
    const instances = upToCount(run);
    foldOutcomes(run, instances, [ok('out_c0'), failed('boom', 2), { cancelled: true, reason: 'x' }], 2_000);
    const results = new FakeResultsStore();
    results.store(run, 2_050);
    const values = run.channels.snapshot().values as Record<string, unknown>;
    expect(values['results:count']).toEqual({
      done: 3,
      ok: 1,
      failed: 1,
      cancelled: 1,
      bytes: 15,
      outCount: 2,
      outIds: ['out_c0', 'out_err'],
      main: 'out_c0',
      failures: [{ instance: 1, reason: 'exit 2 · boom' }],
      chunks: [{ outId: 'out_count_chunk0', count: 3 }],
      parts: 1,
      manifest: 'out_count_manifest',
      // Its outputs as they entered the context pool (a failed instance's output too).
      pooled: [
        { taskId: 'count#0', outId: 'out_c0', pooledAt: 2_000 },
        { taskId: 'count#1', outId: 'out_err', pooledAt: 2_000 },
      ],
      pooledCount: 2,
    });
    expect(results.records('out_count_manifest')).toEqual([
      { instance: 0, status: 'ok', outIds: ['out_c0'], bytes: 10, exitCode: 0, preview: 'preview of out_c0' },
      {
        instance: 1,
        status: 'failed',
        outIds: ['out_err'],
        bytes: 5,
        exitCode: 2,
        preview: '',
        message: 'boom',
      },
      { instance: 2, status: 'cancelled', outIds: [], bytes: 0 },
    ]);
    expect(swarmOutputs(run).count).toEqual(['out_c0', 'out_err']);
    expect(swarmResult(run, {}).manifests).toEqual({ count: 'out_count_manifest' });
    expect(swarmProgress(run).tasks.find((task) => task.task === 'count')).toMatchObject({
      manifest: 'out_count_manifest',
      failures: { count: 1, first: [{ instance: 1, reason: 'exit 2 · boom' }] },
    });
  });

  it('refuses outcomes that do not match the instances', () => {
    const run = createSwarmState(definition);
    const { instances } = nextStep(run, 1);
    expect(() => foldOutcomes(run, instances, [], 2)).toThrow(/fold got 0 outcomes for 1 instances/);
  });

  it('adds each main output to the context pool under its instance label', () => {
    const pooled = parseSwarm(`
name: pooled
tasks:
  fan: { loop: { type: repeat, count: 2 }, script: { content: 'true' } }
hooks:
  post_task:
    - checkpoint_and_prune: { every: 2, strategy: direct_dependencies }
`);
    const run = createSwarmState(pooled);
    const { instances } = nextStep(run, 1);
    expect(duePrunes(run.pool, pooled)).toEqual([]);
    foldOutcomes(run, instances, [ok('out_0'), ok('out_1')], 50);
    expect(run.pool.entries.map((entry) => [entry.taskId, entry.outId, entry.completedAt])).toEqual([
      ['fan#0', 'out_0', 50],
      ['fan#1', 'out_1', 50],
    ]);
    run.pool = markRead(
      run.pool,
      { other: { entries: [{ taskId: 'fan#1', outId: 'out_1', relevance: 0.8 }], maxBytes: 1, maxTasks: 1 } },
      60,
    );
    expect(run.pool.entries[1]).toMatchObject({ lastAccessed: 60, relevanceScore: 0.8 });
    const [due] = duePrunes(run.pool, pooled);
    expect(due).toMatchObject({ index: 0, sinceCheckpoint: 2 });
    run.pool = applyPrune(run.pool, 0, ['fan#0'], 70);
    expect(run.pool).toMatchObject({ added: 2, checkpoints: [2], lastPrunedAt: 70 });
    expect(run.pool.entries.map((entry) => entry.taskId)).toEqual(['fan#1']);
    expect(duePrunes(run.pool, pooled)).toEqual([]);
  });
});

describe('swarm state: skips', () => {
  it('skips the dependents of a failure, runs the reader of its `||` branch; skipped tasks do not fail the swarm', () => {
    const run = createSwarmState(definition);
    const first = nextStep(run, 1).instances;
    foldOutcomes(run, first, [failed('line 1\ndisk on fire\n')], 2);
    const { instances } = nextStep(run, 3);
    expect(instances).toEqual([
      { task: 'on_fetch_error', instance: 0, inputs: { message: 'line 1\ndisk on fire\n' } },
    ]);
    expect(swarmProgress(run).tasks.find((task) => task.task === 'count')).toMatchObject({
      status: 'skipped',
      reason: 'dependency fetch failed',
    });
    expect(swarmProgress(run).tasks.find((task) => task.task === 'report')).toMatchObject({
      status: 'skipped',
      reason: 'dependency count skipped',
    });
    foldOutcomes(run, instances, [ok('out_recovered')], 4);
    expect(run.tasks.allFinished()).toBe(true);
    const result = swarmResult(run, {});
    expect(result.status).toBe('failed');
    expect(result.metrics).toMatchObject({ failedCount: 1, skippedCount: 2, taskCount: 4 });
  });

  it('completes when the only unfinished task is an untaken branch', () => {
    const run = createSwarmState(definition);
    const instances = upToCount(run);
    foldOutcomes(run, instances, [ok('out_c0'), ok('out_c1'), ok('out_c2')], 3);
    new FakeResultsStore().store(run, 3);
    foldOutcomes(run, nextStep(run, 4).instances, [ok('out_report')], 5);
    expect(nextStep(run, 6).instances).toEqual([]);
    expect(run.tasks.allFinished()).toBe(true);
    expect(swarmResult(run, { supervisor: { answer: 'fine', evidenceBytes: 3 } })).toMatchObject({
      status: 'completed',
      outputs: {
        fetch: ['out_fetch'],
        count: ['out_c0', 'out_c1', 'out_c2'],
        report: ['out_report'],
        on_fetch_error: [],
      },
      metrics: { failedCount: 0, skippedCount: 1, continuedAsNew: 0 },
    });
  });

  it('cancels a running task: its instances fold as cancelled, its dependents are skipped', () => {
    const run = createSwarmState(definition);
    const instances = upToCount(run);
    expect(cancelTask(run, 'count', 'not needed', 1_500)).toEqual({ cancelled: true, status: 'cancelled' });
    expect(run.tasks.cancelReason('count')).toBe('not needed');
    foldOutcomes(
      run,
      instances,
      [ok('out_c0'), { cancelled: true, reason: 'not needed' }, { cancelled: true, reason: 'not needed' }],
      2_000,
    );
    expect(swarmProgress(run).tasks.find((task) => task.task === 'count')).toMatchObject({
      status: 'cancelled',
      reason: 'not needed',
      instances: { done: 3, total: 3 },
    });
    nextStep(run, 2_100);
    expect(swarmProgress(run).tasks.find((task) => task.task === 'report')).toMatchObject({
      status: 'skipped',
      reason: 'dependency count cancelled',
    });
    expect(cancelTask(run, 'fetch', undefined, 3_000)).toEqual({ cancelled: false, status: 'done' });
    expect(run.tasks.allFinished()).toBe(true);
  });

  it('ends a task stopped in flight by the run’s cancellation as cancelled, never done, and counts it so', () => {
    const run = createSwarmState(definition);
    const instances = upToCount(run);
    foldOutcomes(
      run,
      instances,
      [ok('out_c0'), { cancelled: true, reason: 'the run was cancelled', endsTask: true }, ok('out_c2')],
      2_000,
    );
    expect(swarmProgress(run).tasks.find((task) => task.task === 'count')).toMatchObject({
      status: 'cancelled',
      reason: 'the run was cancelled',
      instances: { done: 3, total: 3 },
    });
    nextStep(run, 2_100);
    expect(swarmProgress(run).tasks.find((task) => task.task === 'report')).toMatchObject({
      status: 'skipped',
      reason: 'dependency count cancelled',
    });
    expect(taskCounts(swarmProgress(run).tasks)).toEqual({ done: 1, failed: 1, total: 4 });
  });

  it('a cancelled outcome without endsTask (a run begun before it) folds as it did: the task ends done', () => {
    const run = createSwarmState(definition);
    const instances = upToCount(run);
    foldOutcomes(
      run,
      instances,
      [ok('out_c0'), { cancelled: true, reason: 'cancelled' }, ok('out_c2')],
      2_000,
    );
    expect(swarmProgress(run).tasks.find((task) => task.task === 'count')).toMatchObject({ status: 'done' });
  });

  it('names the tasks when asked about one it does not have', () => {
    const run = createSwarmState(definition);
    for (const ask of [() => cancelTask(run, 'ghost', undefined, 1), () => taskSpec(run, 'ghost')]) {
      let caught: unknown;
      try {
        ask();
      } catch (error) {
        caught = error;
      }
      expect(WharfOrchestratorError.isInstance(caught)).toBe(true);
      expect((caught as WharfOrchestratorError).code).toBe('INVALID_REQUEST');
      expect((caught as Error).message).toBe(
        'unknown task "ghost"; tasks: fetch, count, report, on_fetch_error',
      );
    }
  });
});

describe('swarm state: failures', () => {
  it('reads a failure into the task reason: exit code, signal, timeout, the last lines of stderr', () => {
    const run = createSwarmState(definition);
    const tail = `${'x'.repeat(400)}\nsecond\nthird\nfourth\n`;
    foldOutcomes(
      run,
      nextStep(run, 1).instances,
      [{ ...failed(tail, 137), signal: 'SIGKILL', timedOut: true }],
      2,
    );
    const reason = swarmProgress(run).tasks[0]?.reason ?? '';
    expect(reason).toBe('exit 137 · signal SIGKILL · timed out · second ⏎ third ⏎ fourth');
    const long = createSwarmState(definition);
    foldOutcomes(
      long,
      nextStep(long, 1).instances,
      [{ ...failed(`${'y'.repeat(400)}\n`), exitCode: null }],
      2,
    );
    expect(swarmProgress(long).tasks[0]?.reason).toBe(`…${'y'.repeat(300)}`);
    const bare = createSwarmState(definition);
    const { exitCode: _none, ...withoutExit } = failed('');
    foldOutcomes(bare, nextStep(bare, 1).instances, [withoutExit], 2);
    expect(swarmProgress(bare).tasks[0]?.reason).toBe('failed');
  });

  it('fails the tasks whose inputs never resolved, naming the paths', () => {
    const gated = parseSwarm(`
name: gated
tasks:
  greet: { inputs: { who: †input.who }, script: { content: 'true' } }
`);
    const run = createSwarmState(gated);
    nextStep(run, 1);
    failUnresolved(run, 9);
    expect(swarmProgress(run).tasks[0]).toMatchObject({
      status: 'failed',
      reason: 'inputs never resolved: †input.who',
      endedAt: 9,
    });
    expect(swarmResult(run, {}).status).toBe('failed');
  });

  it('fails the swarm when the supervisor could not answer, though every task is done', () => {
    const single = parseSwarm('name: one\ntasks:\n  a: { script: { content: "true" } }\n');
    const run = createSwarmState(single);
    foldOutcomes(run, nextStep(run, 1).instances, [ok('out_a')], 2);
    const result = swarmResult(run, { supervisor: { answer: '', evidenceBytes: 0, error: 'unknown model' } });
    expect(result.status).toBe('failed');
    expect(result.metrics.failedCount).toBe(0);
  });
});

describe('swarm state: carried state', () => {
  function roundTrip(state: CarriedState): CarriedState {
    return JSON.parse(JSON.stringify(state)) as CarriedState;
  }

  it('carries everything over continue-as-new: the next run reports and plans as this one would', () => {
    const run = createSwarmState(definition);
    const instances = upToCount(run);
    foldOutcomes(run, instances, [ok('out_c0'), ok('out_c1'), ok('out_c2')], 3);
    new FakeResultsStore().store(run, 3, true);
    const carried = roundTrip(carriedState(run, []));
    expect(carried.generation).toBe(1);
    expect(carried.resume).toBeUndefined();
    const next = createSwarmState(definition, { carried });
    expect(next.generation).toBe(1);
    expect(swarmProgress(next)).toEqual(swarmProgress(run));
    expect(next.channels.snapshot()).toEqual(run.channels.snapshot());
    expect(swarmOutputs(next)).toEqual(swarmOutputs(run));
    expect(orderedCompacts(next)).toEqual(orderedCompacts(run));
    expect(next.pool).toEqual(run.pool);
    expect(nextStep(next, 4).instances).toEqual(nextStep(run, 4).instances);
    expect(next.step).toBe(run.step);
  });

  it('resumes a loop cut by a history bound from the first instance not started', () => {
    const run = createSwarmState(definition);
    const instances = upToCount(run);
    foldOutcomes(run, instances.slice(0, 1), [ok('out_c0')], 3);
    expect(() => carriedState(run, ['count'])).toThrow(/instance records of count are not stored yet/);
    const results = new FakeResultsStore();
    results.store(run, 3, true);
    const next = createSwarmState(definition, { carried: roundTrip(carriedState(run, ['count'])) });
    expect(swarmProgress(next).tasks.find((task) => task.task === 'count')).toMatchObject({
      status: 'running',
      instances: { done: 1, total: 3 },
    });
    const resumed = nextStep(next, 4);
    expect(resumed.instances).toEqual(
      [1, 2].map((instance) => ({ task: 'count', instance, inputs: { source: 'out_fetch' } })),
    );
    expect(resumed.lostInputs).toEqual([]);
    expect(next.step).toBe(3);
    foldOutcomes(next, resumed.instances, [ok('out_c1'), ok('out_c2')], 5);
    results.store(next, 5);
    expect(swarmOutputs(next).count).toEqual(['out_c0', 'out_c1', 'out_c2']);
    // The records stored before continuing as new and after are one list, in instance order.
    expect(results.records('out_count_manifest').map((record) => record.instance)).toEqual([0, 1, 2]);
    expect(nextStep(next, 6).instances.map((item) => item.task)).toEqual(['report']);
  });
});

describe('swarm state: stored results', () => {
  it('folds a long loop’s first chunks into a manifest, so a run carries at most 8 chunk refs', () => {
    const long = parseSwarm(
      'name: long\ntasks:\n  fan: { loop: { type: repeat, count: 70 }, script: { content: "true" } }\n',
    );
    const run = createSwarmState(long);
    const results = new FakeResultsStore();
    const { instances } = nextStep(run, 1);
    // One instance per run of the chain: each run stores a chunk of one record before handing over.
    instances.forEach((instance, index) => {
      foldOutcomes(run, [instance], [ok(`out_${index}`)], 2 + index);
      results.store(run, 2 + index, index < instances.length - 1);
      const chunks = (run.channels.snapshot().values as Record<string, { chunks: unknown[] }>)['results:fan']
        ?.chunks;
      expect(chunks?.length).toBeLessThanOrEqual(8);
    });
    const manifest = swarmResult(run, {}).manifests?.fan as string;
    expect(results.records(manifest).map((record) => record.outIds[0])).toEqual(
      Array.from({ length: 70 }, (_, index) => `out_${index}`),
    );
    // Past 64 out ids, progress and results name the manifest instead of listing them.
    expect(swarmProgress(run).tasks[0]).toMatchObject({ outIds: [], outCount: 70, manifest });
  });
});

describe('swarm state: model usage', () => {
  it("sums agent instances' usage per task and, with the supervisor's, in the result", () => {
    const agentic = parseSwarm(`
name: agentic
agents:
  writer: { model: mock:w }
tasks:
  write: { agent: writer, loop: { type: repeat, count: 2 }, prompt: Write. }
  tally: { script: { content: 'true' } }
`);
    const run = createSwarmState(agentic);
    const instances = nextStep(run, 1).instances;
    const usage = (inputTokens: number, costUsd: number) => ({
      calls: 2,
      inputTokens,
      outputTokens: 10,
      totalTokens: inputTokens + 10,
      costUsd,
    });
    foldOutcomes(
      run,
      instances,
      [{ ...ok('out_w0'), usage: usage(100, 0.25) }, { ...ok('out_w1'), usage: usage(50, 0.5) }, ok('out_t')],
      2,
    );
    const byTask = Object.fromEntries(swarmProgress(run).tasks.map((task) => [task.task, task]));
    expect(byTask.write?.usage).toEqual({
      calls: 4,
      inputTokens: 150,
      outputTokens: 20,
      totalTokens: 170,
      costUsd: 0.75,
    });
    expect(byTask.tally?.usage).toBeUndefined();
    const supervisor = { answer: 'ok', evidenceBytes: 0, usage: usage(10, 0.25) };
    expect(swarmResult(run, { supervisor }).metrics.usage).toEqual({
      calls: 6,
      inputTokens: 160,
      outputTokens: 30,
      totalTokens: 190,
      costUsd: 1,
    });
    expect(swarmResult(createSwarmState(definition), {}).metrics.usage).toBeUndefined();
  });
});
