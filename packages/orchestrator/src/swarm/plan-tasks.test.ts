import { describe, expect, it } from 'vitest';
import { parseSwarm } from '../dsl/parse-swarm.js';
import type { SwarmDefinition } from '../dsl/swarm-schema.js';
import type { SubagentResult, TaskStatus } from '../shared/types.js';
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
  options: { joined?: boolean; skipUnresolvable?: boolean; swarm?: SwarmDefinition } = {},
): Record<string, TaskDecision> {
  const swarm = options.swarm ?? definition;
  const decisions = planTasks({
    definition: swarm,
    status: (task) => statuses[task] ?? 'pending',
    joined: () => options.joined ?? true,
    resolve: (task, instance) => context.resolveInputs(task, swarm.tasks[task]?.inputs ?? {}, instance),
    skipUnresolvable: options.skipUnresolvable ?? true,
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
    wholeFailure: true,
  });
  return context;
}

describe('planTasks', () => {
  it('skips the reader of the untaken failure branch, with the input in the reason, and what depends on it', () => {
    const decisions = plan({ check: 'done' }, contextAfter('ok'));
    expect(decisions.on_ok).toEqual({
      task: 'on_ok',
      action: 'run',
      instances: [{ instance: 0, inputs: { value: 'out_ok' } }],
    });
    expect(decisions.either).toMatchObject({ action: 'run', instances: [{ inputs: { value: 'out_ok' } }] });
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
    expect(decisions.on_err).toMatchObject({ action: 'run', instances: [{ inputs: { error: 'boom' } }] });
    expect(decisions.either).toMatchObject({
      action: 'run',
      instances: [{ inputs: { value: 'out_failed' } }],
    });
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

  it('plans like before for runs recorded before skipping: the reader waits for the untaken branch', () => {
    const decisions = plan({ check: 'done' }, contextAfter('ok'), { skipUnresolvable: false });
    expect(decisions.on_err).toEqual({ task: 'on_err', action: 'wait', waitingFor: ['†data.err.message'] });
    const failed = plan({ check: 'failed' }, contextAfter('failed'), { skipUnresolvable: false });
    expect(failed.on_err).toEqual({ task: 'on_err', action: 'skip', reason: 'dependency check failed' });
  });
});
