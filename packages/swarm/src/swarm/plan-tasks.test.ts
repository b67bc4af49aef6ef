import { describe, expect, it } from 'vitest';
import type { SubagentResult } from '../contracts/agent-contracts.js';
import type { MapItems } from '../contracts/data-plane-contracts.js';
import type { TaskStatus } from '../contracts/progress-contracts.js';
import type { SwarmDefinition } from '../contracts/swarm-schema.js';
import { parseSwarm } from '../dsl/parse-swarm.js';
import { failureReaders, planTasks, type TaskDecision } from './plan-tasks.js';
import { SwarmContext } from './swarm-context.js';

const definition = parseSwarm(`
name: branches
tasks:
  check:
    script: { content: 'true' }
    output: †data.ok || †data.err
  on_ok:
    depends_on: [check]
    inputs: { value: †data.ok.outId }
    script: { content: 'true' }
  on_err:
    depends_on: [check]
    inputs: { error: †data.err.message }
    script: { content: 'true' }
    output: †data.handled
  either:
    depends_on: [check]
    inputs: { value: '†data.ok.outId || †data.err.outId' }
    script: { content: 'true' }
  after_err:
    depends_on: [on_err]
    inputs: { handled: †data.handled }
    script: { content: 'true' }
  from_input:
    inputs: { key: †input.key }
    script: { content: 'true' }
`);

function result(status: 'ok' | 'failed', outId: string): SubagentResult {
  return {
    status,
    outputs: [{ outId }],
    compact: '',
    bytes: 3,
    exitCode: status === 'ok' ? 0 : 1,
    durationMs: 1,
    preview: 'hi',
    ...(status === 'failed' ? { stderrTail: 'boom' } : {}),
  };
}

function plan(
  statuses: Record<string, TaskStatus>,
  context: SwarmContext,
  options: { joined?: boolean; swarm?: SwarmDefinition } = {},
): Record<string, TaskDecision> {
  const swarm = options.swarm ?? definition;
  const decisions = planTasks({
    definition: swarm,
    status: (task) => statuses[task] ?? 'pending',
    joined: () => options.joined ?? true,
    resolve: (task, instance) => context.resolveInputs(task, swarm.tasks[task]?.inputs ?? {}, instance),
    evaluate: (task, expression) => context.evaluate(task, expression),
    approved: () => true,
  });
  return Object.fromEntries(decisions.map((decision) => [decision.task, decision]));
}

function contextAfter(status: 'ok' | 'failed'): SwarmContext {
  const context = new SwarmContext(undefined, {});
  context.recordOutput({
    task: 'check',
    instance: undefined,
    output: definition.tasks.check?.output,
    result: result(status, `out_${status}`),
    date: '2026-01-01T00:00:00.000Z',
  });
  return context;
}

describe('planTasks', () => {
  it('skips the reader of the untaken failure branch, with the input in the reason, and what depends on it', () => {
    const decisions = plan({ check: 'done' }, contextAfter('ok'));
    expect(decisions.on_ok).toEqual({ task: 'on_ok', action: 'run', total: 1, inputs: { value: 'out_ok' } });
    expect(decisions.either).toMatchObject({ action: 'run', inputs: { value: 'out_ok' } });
    expect(decisions.on_err).toEqual({
      task: 'on_err',
      action: 'skip',
      reason: 'input †data.err.message can no longer be written (check done)',
    });
    expect(decisions.after_err).toEqual({
      task: 'after_err',
      action: 'skip',
      reason: 'dependency on_err skipped',
    });
  });

  it('runs the readers of the failure branch when the writer failed; `||` resolves to the side written', () => {
    const decisions = plan({ check: 'failed' }, contextAfter('failed'));
    expect(decisions.on_ok).toEqual({ task: 'on_ok', action: 'skip', reason: 'dependency check failed' });
    expect(decisions.on_err).toMatchObject({ action: 'run', inputs: { error: 'boom' } });
    expect(decisions.either).toMatchObject({ action: 'run', inputs: { value: 'out_failed' } });
    expect(failureReaders(definition, 'check')).toEqual(['on_err', 'either']);
  });

  it('keeps waiting while a writer may still write, and for †input values that a signal may add', () => {
    const context = new SwarmContext(undefined, {});
    const decisions = plan({ check: 'running' }, context, { joined: false });
    expect(decisions.on_err).toBeUndefined();
    expect(decisions.from_input).toEqual({ task: 'from_input', action: 'wait', waitingFor: ['†input.key'] });
  });

  it('propagates skips through inputs whose every writer was skipped, in one plan', () => {
    const swarm = parseSwarm(`
name: chain
tasks:
  first:
    script: { content: 'true' }
    output: †data.first || †data.first_error
  second:
    depends_on: [first]
    inputs: { error: †data.first_error }
    script: { content: 'true' }
    output: †data.second
  third:
    depends_on: [second]
    inputs: { value: '†data.second || †data.first_error' }
    script: { content: 'true' }
`);
    const context = new SwarmContext(undefined, {});
    context.recordOutput({
      task: 'first',
      instance: undefined,
      output: swarm.tasks.first?.output,
      result: result('ok', 'out_first'),
      date: '2026-01-01T00:00:00.000Z',
    });
    const decisions = plan({ first: 'done' }, context, { swarm });
    expect(decisions.second).toMatchObject({ action: 'skip' });
    expect(decisions.third).toEqual({ task: 'third', action: 'skip', reason: 'dependency second skipped' });
  });
});

describe('planTasks with when:, map loops and approval gates', () => {
  const swarm = parseSwarm(`
name: control
tasks:
  check:
    script: { content: 'true' }
    output: †data.check
  list:
    script: { content: 'true' }
    output: †data.list
  deploy:
    depends_on: [check]
    when: "†data.check.preview == 'yes'"
    script: { content: 'true' }
    output: †data.deploy
  announce:
    depends_on: [deploy]
    script: { content: 'true' }
  probe:
    script: { content: 'true' }
    output: †data.probe_ok || †data.probe_error
  fine:
    depends_on: [probe]
    when: "!†data.probe_error"
    script: { content: 'true' }
  each:
    depends_on: [list, check]
    loop: { type: map, over: †data.list.preview }
    inputs: { check: †data.check.exitCode }
    script: { content: 'true' }
  gated:
    approval: {}
    script: { content: 'true' }
`);

  function record(context: SwarmContext, task: string, preview: string): void {
    context.recordOutput({
      task,
      instance: undefined,
      output: swarm.tasks[task]?.output,
      result: { ...result('ok', `out_${task}`), preview },
      date: '2026-01-01T00:00:00.000Z',
    });
  }

  function planControl(
    statuses: Record<string, TaskStatus>,
    context: SwarmContext,
    approved: (task: string) => boolean = () => true,
    joinedAll = false,
    items: (task: string) => MapItems | undefined = () => undefined,
  ): Record<string, TaskDecision> {
    const decisions = planTasks({
      definition: swarm,
      status: (task) => statuses[task] ?? 'pending',
      joined: (task) =>
        joinedAll ||
        (swarm.tasks[task]?.depends_on ?? []).every((dependency) => statuses[dependency] === 'done'),
      resolve: (task, instance) => context.resolveInputs(task, swarm.tasks[task]?.inputs ?? {}, instance),
      evaluate: (task, expression) => context.evaluate(task, expression),
      approved,
      items,
    });
    return Object.fromEntries(decisions.map((decision) => [decision.task, decision]));
  }

  it('skips an untaken branch and its dependents in one plan; a condition on the dead path holds', () => {
    const context = new SwarmContext(undefined, {});
    record(context, 'check', 'no\n');
    const decisions = planControl({ check: 'done' }, context);
    expect(decisions.deploy).toEqual({
      task: 'deploy',
      action: 'skip',
      reason: "when: †data.check.preview == 'yes' is false",
    });
    expect(decisions.announce).toEqual({
      task: 'announce',
      action: 'skip',
      reason: 'dependency deploy skipped',
    });
    // The probe succeeded: nothing can write †data.probe_error any more, `!†data.probe_error` holds.
    record(context, 'probe', 'ok');
    expect(planControl({ check: 'done', probe: 'done' }, context).fine).toMatchObject({ action: 'run' });
  });

  it('runs the taken branch; a condition on a path still to be written waits', () => {
    const context = new SwarmContext(undefined, {});
    record(context, 'check', 'yes\n');
    const decisions = planControl({ check: 'done' }, context);
    expect(decisions.deploy).toMatchObject({ action: 'run' });
    // While the probe runs, its error side may still be written: the condition waits.
    expect(planControl({ check: 'done', probe: 'running' }, context, () => true, true).fine).toEqual({
      task: 'fine',
      action: 'wait',
      waitingFor: ['†data.probe_error'],
    });
  });

  it('fans a map loop out over the list once it is written, each instance with its item and index', () => {
    const context = new SwarmContext(undefined, {});
    record(context, 'check', 'yes');
    expect(planControl({ check: 'done', list: 'running' }, context).each).toBeUndefined();
    record(context, 'list', 'a.ts\nb.ts\n');
    // The inputs resolve once for the task; each instance adds its item and index (see planStep).
    expect(planControl({ check: 'done', list: 'done' }, context).each).toEqual({
      task: 'each',
      action: 'run',
      total: 2,
      inputs: { check: 0 },
      items: ['a.ts', 'b.ts'],
    });
  });

  it('fails a map loop whose over is no list, and runs none for an empty one', () => {
    const context = new SwarmContext(undefined, {});
    record(context, 'check', 'yes');
    record(context, 'list', '\n');
    expect(planControl({ list: 'done', check: 'done' }, context).each).toEqual({
      task: 'each',
      action: 'run',
      total: 0,
      inputs: { check: 0 },
      items: [],
    });
    const scalar = new SwarmContext(undefined, {});
    record(scalar, 'check', 'yes');
    scalar.recordOutput({
      task: 'list',
      instance: undefined,
      output: '†data.list.preview',
      result: result('ok', 'x'),
      date: '2026-01-01T00:00:00.000Z',
    });
    // †data.list.preview now holds a whole output value: the loop runs over its stored body,
    // which a worker indexes first; a body that is no list fails the task with the worker's reason.
    expect(planControl({ list: 'done', check: 'done' }, scalar).each).toEqual({
      task: 'each',
      action: 'index',
      source: { source: 'x' },
      maxItems: 1_000_000,
    });
    const refused = { source: 'x', error: 'the body of x is one JSON object, not a list' };
    expect(
      planControl(
        { list: 'done', check: 'done' },
        scalar,
        () => true,
        false,
        () => refused,
      ).each,
    ).toEqual({
      task: 'each',
      action: 'fail',
      reason: refused.error,
    });
    const indexed = { source: 'x', index: 'out_index', count: 5_000, format: 'line' as const };
    expect(
      planControl(
        { list: 'done', check: 'done' },
        scalar,
        () => true,
        false,
        () => indexed,
      ).each,
    ).toEqual({
      task: 'each',
      action: 'run',
      total: 5_000,
      inputs: { check: 0 },
      stored: { index: 'out_index', format: 'line' },
    });
  });

  it('holds a task that could run at its approval gate until it is approved', () => {
    const context = new SwarmContext(undefined, {});
    expect(planControl({}, context, (task) => task !== 'gated').gated).toEqual({
      task: 'gated',
      action: 'approval',
    });
    expect(planControl({}, context).gated).toMatchObject({ action: 'run' });
  });
});
