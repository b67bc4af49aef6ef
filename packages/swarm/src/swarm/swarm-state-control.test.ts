import { describe, expect, it } from 'vitest';
import { parseSwarm } from '../dsl/parse-swarm.js';
import { instanceLabel } from '../dsl/task-instances.js';
import { foldOutcomes } from './fold-step.js';
import { nextStep } from './plan-step.js';
import { FakeResultsStore, okResult } from './subagent-results.test.data.js';
import { nextGateDeadline, openGates, swarmProgress } from './swarm-report.js';
import { carriedState, createSwarmState, type SwarmState, taskSpec } from './swarm-state.js';
import { answerTaskApproval, checkApproval } from './task-requests.js';

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
function runToGate(listing: string): SwarmState {
  const run = createSwarmState(definition);
  const first = nextStep(run, 1);
  expect(first.instances.map((item) => item.task)).toEqual(['list']);
  foldOutcomes(run, first.instances, [ok('out_list', listing)], 2);
  for (let now = 3; now < 20; now++) {
    const { instances } = nextStep(run, now);
    if (instances.length === 0) break;
    foldOutcomes(
      run,
      instances,
      instances.map((item) => ok(`out_${item.task}_${item.instance}`)),
      now,
    );
    new FakeResultsStore().store(run, now);
  }
  return run;
}

describe('swarm state: with map loops and approval gates', () => {
  it('runs one labelled instance per item, then holds the gated task and lists its gate', () => {
    const run = createSwarmState(definition);
    foldOutcomes(run, nextStep(run, 1).instances, [ok('out_list', 'a\nb\nc\n')], 2);
    const { instances } = nextStep(run, 3);
    expect(
      instances.map((item) => [
        instanceLabel(item.task, taskSpec(run, item.task), item.instance),
        item.inputs,
      ]),
    ).toEqual([
      ['each#0', { item: 'a', index: 0 }],
      ['each#1', { item: 'b', index: 1 }],
      ['each#2', { item: 'c', index: 2 }],
    ]);
    foldOutcomes(run, instances, [ok('o1'), ok('o2'), ok('o3')], 4);
    expect(swarmProgress(run).tasks.find((task) => task.task === 'each')).toMatchObject({
      status: 'done',
      instances: { done: 3, total: 3 },
    });
    foldOutcomes(run, nextStep(run, 5).instances, [ok('out_after')], 6);
    expect(nextStep(run, 7).instances).toEqual([]);
    expect(openGates(run)).toEqual([{ task: 'deploy', prompt: 'Ship?', requestedAt: 7, deadline: 60_007 }]);
    expect(nextGateDeadline(run)).toBe(60_007);
  });

  it('finishes a map loop over an empty list at once and releases its dependents', () => {
    const run = runToGate('\n');
    const tasks = swarmProgress(run).tasks;
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
    expect(answerTaskApproval(run, { task: 'deploy', approve: true, comment: 'ok', by: 'ana' }, 100)).toEqual(
      {
        task: 'deploy',
        decision: 'approved',
        status: 'waiting',
      },
    );
    expect(() => checkApproval(run, { task: 'deploy', approve: false })).toThrow(
      'task deploy was already approved',
    );
    expect(() => checkApproval(run, { task: 'after', approve: true })).toThrow(
      'task after has no approval gate',
    );
    expect(() => checkApproval(run, { task: 'ghost', approve: true })).toThrow('unknown task "ghost"');
    expect(nextStep(run, 101).instances.map((item) => item.task)).toEqual(['deploy']);
  });

  it('skips a rejected task with the comment as its reason, and then its dependents', () => {
    const run = runToGate('a\n');
    answerTaskApproval(run, { task: 'deploy', approve: false, comment: 'not today' }, 100);
    expect(nextStep(run, 101).instances).toEqual([]);
    const tasks = swarmProgress(run).tasks;
    expect(tasks.find((task) => task.task === 'deploy')).toMatchObject({
      status: 'skipped',
      reason: 'rejected: not today',
      approval: { decision: 'rejected', comment: 'not today' },
    });
    expect(tasks.find((task) => task.task === 'announce')).toMatchObject({
      status: 'skipped',
      reason: 'dependency deploy skipped',
    });
    expect(run.tasks.allFinished()).toBe(true);
  });

  it('decides an unanswered gate by its timeout, and carries gates and map sizes across continue-as-new', () => {
    const run = runToGate('a\nb\n');
    const carried = carriedState(run, []);
    const next = createSwarmState(definition, { carried });
    expect(swarmProgress(next).tasks.find((task) => task.task === 'each')?.instances).toEqual({
      done: 2,
      total: 2,
    });
    expect(openGates(next).map((gate) => gate.task)).toEqual(['deploy']);
    expect(nextStep(next, 60_000).instances).toEqual([]);
    expect(nextStep(next, 60_100).instances).toEqual([]);
    expect(swarmProgress(next).tasks.find((task) => task.task === 'deploy')).toMatchObject({
      status: 'skipped',
      reason: 'rejected by timeout',
      approval: { timedOut: true },
    });
  });
});

describe('swarm state: resuming a map loop cut by a history bound', () => {
  it('starts the instances left unstarted, with their items, in the next run', () => {
    const run = createSwarmState(definition);
    foldOutcomes(run, nextStep(run, 1).instances, [ok('out_list', 'a\nb\nc\n')], 2);
    const { instances } = nextStep(run, 3);
    // Only the first instance started before the run had to continue as new.
    foldOutcomes(run, instances.slice(0, 1), [ok('o1')], 4);
    new FakeResultsStore().store(run, 4, true);
    const next = createSwarmState(definition, { carried: carriedState(run, ['each']) });
    const resumed = nextStep(next, 5);
    expect(resumed.lostInputs).toEqual([]);
    expect(resumed.instances).toEqual([
      { task: 'each', instance: 1, inputs: { item: 'b', index: 1 } },
      { task: 'each', instance: 2, inputs: { item: 'c', index: 2 } },
    ]);
    foldOutcomes(next, resumed.instances, [ok('o2'), ok('o3')], 6);
    expect(swarmProgress(next).tasks.find((task) => task.task === 'each')).toMatchObject({
      status: 'done',
      instances: { done: 3, total: 3 },
      outIds: ['o1', 'o2', 'o3'],
    });
  });
});
