import { describe, expect, it } from 'vitest';
import { parseSwarm } from '../dsl/parse-swarm.js';
import { FakeResultsStore, okResult } from './subagent-results.test.data.js';
import { SwarmRun } from './swarm-run.js';

const definition = parseSwarm(`
name: control
tasks:
  list:
    script: { content: 'true' }
    output: †data.list
  each:
    depends_on: [list]
    loop: { type: map, over: †data.list.preview, max_concurrency: 2 }
    script: { content: 'true' }
    output: †data.each
  after:
    depends_on: [each]
    script: { content: 'true' }
  deploy:
    depends_on: [after]
    approval: { prompt: Ship?, timeout: 1m, on_reject: skip }
    script: { content: 'true' }
  announce:
    depends_on: [deploy]
    script: { content: 'true' }
`);

const ok = okResult;

/** Runs steps until `deploy` waits at its gate; `listing` is what `list` prints. */
function runToGate(listing: string): SwarmRun {
  const run = new SwarmRun({ definition });
  const first = run.nextStep(1);
  expect(first.instances.map((item) => item.task)).toEqual(['list']);
  run.fold(first.instances, [ok('out_list', listing)], 2);
  for (let now = 3; now < 20; now++) {
    const { instances } = run.nextStep(now);
    if (instances.length === 0) break;
    run.fold(
      instances,
      instances.map((item) => ok(`out_${item.task}_${item.instance}`)),
      now,
    );
    new FakeResultsStore().store(run, now);
  }
  return run;
}

describe('SwarmRun with map loops and approval gates', () => {
  it('runs one labelled instance per item, then holds the gated task and lists its gate', () => {
    const run = new SwarmRun({ definition });
    run.fold(run.nextStep(1).instances, [ok('out_list', 'a\nb\nc\n')], 2);
    const { instances } = run.nextStep(3);
    expect(instances.map((item) => [run.label(item.task, item.instance), item.inputs])).toEqual([
      ['each#0', { item: 'a', index: 0 }],
      ['each#1', { item: 'b', index: 1 }],
      ['each#2', { item: 'c', index: 2 }],
    ]);
    run.fold(instances, [ok('o1'), ok('o2'), ok('o3')], 4);
    expect(run.progress().tasks.find((task) => task.task === 'each')).toMatchObject({
      status: 'done',
      instances: { done: 3, total: 3 },
    });
    run.fold(run.nextStep(5).instances, [ok('out_after')], 6);
    expect(run.nextStep(7).instances).toEqual([]);
    expect(run.pendingApprovals()).toEqual([
      { task: 'deploy', prompt: 'Ship?', requestedAt: 7, deadline: 60_007 },
    ]);
    expect(run.nextApprovalDeadline()).toBe(60_007);
  });

  it('finishes a map loop over an empty list at once and releases its dependents', () => {
    const run = runToGate('\n');
    const tasks = run.progress().tasks;
    expect(tasks.find((task) => task.task === 'each')).toMatchObject({
      status: 'done',
      instances: { done: 0, total: 0 },
    });
    expect(tasks.find((task) => task.task === 'after')?.status).toBe('done');
    expect(tasks.find((task) => task.task === 'deploy')).toMatchObject({
      status: 'waiting',
      waitingFor: ['approval'],
    });
  });

  it('runs an approved task at the next step; a second answer is refused by name', () => {
    const run = runToGate('a\n');
    expect(run.answerApproval({ task: 'deploy', approve: true, comment: 'ok', by: 'ana' }, 100)).toEqual({
      task: 'deploy',
      decision: 'approved',
      status: 'waiting',
    });
    expect(() => run.checkApproval({ task: 'deploy', approve: false })).toThrow(
      'task deploy was already approved',
    );
    expect(() => run.checkApproval({ task: 'after', approve: true })).toThrow(
      'task after has no approval gate',
    );
    expect(() => run.checkApproval({ task: 'ghost', approve: true })).toThrow('unknown task "ghost"');
    expect(run.nextStep(101).instances.map((item) => item.task)).toEqual(['deploy']);
  });

  it('skips a rejected task with the comment as its reason, and then its dependents', () => {
    const run = runToGate('a\n');
    run.answerApproval({ task: 'deploy', approve: false, comment: 'not today' }, 100);
    expect(run.nextStep(101).instances).toEqual([]);
    const tasks = run.progress().tasks;
    expect(tasks.find((task) => task.task === 'deploy')).toMatchObject({
      status: 'skipped',
      reason: 'rejected: not today',
      approval: { decision: 'rejected', comment: 'not today' },
    });
    expect(tasks.find((task) => task.task === 'announce')).toMatchObject({
      status: 'skipped',
      reason: 'dependency deploy skipped',
    });
    expect(run.allFinished()).toBe(true);
  });

  it('decides an unanswered gate by its timeout, and carries gates and map sizes across continue-as-new', () => {
    const run = runToGate('a\nb\n');
    const carried = run.carry();
    const next = new SwarmRun({ definition, carried });
    expect(next.progress().tasks.find((task) => task.task === 'each')?.instances).toEqual({
      done: 2,
      total: 2,
    });
    expect(next.pendingApprovals().map((gate) => gate.task)).toEqual(['deploy']);
    expect(next.nextStep(60_000).instances).toEqual([]);
    expect(next.nextStep(60_100).instances).toEqual([]);
    expect(next.progress().tasks.find((task) => task.task === 'deploy')).toMatchObject({
      status: 'skipped',
      reason: 'rejected by timeout',
      approval: { timedOut: true },
    });
  });
});

describe('SwarmRun resuming a map loop cut by a history bound', () => {
  it('starts the instances left unstarted, with their items, in the next run', () => {
    const run = new SwarmRun({ definition });
    run.fold(run.nextStep(1).instances, [ok('out_list', 'a\nb\nc\n')], 2);
    const { instances } = run.nextStep(3);
    // Only the first instance started before the run had to continue as new.
    run.fold(instances.slice(0, 1), [ok('o1')], 4);
    new FakeResultsStore().store(run, 4, true);
    const next = new SwarmRun({
      definition,
      carried: run.carry(['each']),
    });
    const resumed = next.nextStep(5);
    expect(resumed.lostInputs).toEqual([]);
    expect(resumed.instances).toEqual([
      { task: 'each', instance: 1, inputs: { item: 'b', index: 1 } },
      { task: 'each', instance: 2, inputs: { item: 'c', index: 2 } },
    ]);
    next.fold(resumed.instances, [ok('o2'), ok('o3')], 6);
    expect(next.progress().tasks.find((task) => task.task === 'each')).toMatchObject({
      status: 'done',
      instances: { done: 3, total: 3 },
      outIds: ['o1', 'o2', 'o3'],
    });
  });
});
