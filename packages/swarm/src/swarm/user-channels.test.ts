import { describe, expect, it } from 'vitest';
import type { SubagentResult } from '../contracts/agent-contracts.js';
import { parseSwarm } from '../dsl/parse-swarm.js';
import { foldOutcomes } from './fold-step.js';
import { nextStep } from './plan-step.js';
import { FakeResultsStore } from './subagent-results.test.data.js';
import { swarmProgress } from './swarm-report.js';
import { carriedState, createSwarmState } from './swarm-state.js';

const definition = parseSwarm(`
name: channels
channels:
  findings: { type: topic }
  latest: { type: last_value }
  bytes_seen: { type: delta }
  done: { type: barrier, expected: 2 }
  log: { type: messages }
tasks:
  scan:
    loop: { type: repeat, count: 2 }
    script: { content: 'true' }
    output: †channels.findings && †channels.bytes_seen && †channels.done && †channels.log
  lint:
    script: { content: 'true' }
    output: †channels.latest || †channels.findings
  report:
    depends_on: [scan, lint]
    inputs: { all: †channels.findings, first: †channels.findings.0.outId, total: †channels.bytes_seen, latest: †channels.latest }
    script: { content: 'true' }
  gated:
    depends_on: [scan]
    inputs: { arrivals: †channels.done }
    script: { content: 'true' }
`);

function ok(outId: string, bytes = 10): SubagentResult {
  return {
    status: 'ok',
    outputs: [{ outId }],
    compact: outId,
    bytes,
    exitCode: 0,
    durationMs: 1,
    preview: `p ${outId}`,
  };
}

function failed(outId: string): SubagentResult {
  return { ...ok(outId, 3), status: 'failed', exitCode: 1, stderrTail: 'boom' };
}

describe('user channels over a swarm run', () => {
  it('folds task outputs into channels by their rule and resolves †channels inputs from them', () => {
    const run = createSwarmState(definition);
    const first = nextStep(run, 1);
    expect(first.instances.map((item) => `${item.task}#${item.instance}`)).toEqual([
      'scan#0',
      'scan#1',
      'lint#0',
    ]);
    foldOutcomes(run, first.instances, [ok('out_a', 10), ok('out_b', 20), failed('out_l')], 2);

    const channels = run.channels.snapshot().values;
    expect(channels['channel:findings']).toEqual([
      expect.objectContaining({ outId: 'out_a', status: 'ok' }),
      expect.objectContaining({ outId: 'out_b' }),
      // lint failed: its `||` failure side wrote the topic, with the error message.
      expect.objectContaining({ outId: 'out_l', status: 'failed', message: 'boom' }),
    ]);
    expect(channels['channel:bytes_seen']).toBe(30);
    expect(channels['channel:done']).toEqual(['scan#0', 'scan#1']);
    expect(channels['channel:log']).toEqual([
      expect.objectContaining({ id: 'scan#0', outId: 'out_a' }),
      expect.objectContaining({ id: 'scan#1', outId: 'out_b' }),
    ]);
    expect(channels['channel:latest']).toBeUndefined();

    const second = nextStep(run, 3);
    const byTask = Object.fromEntries(second.instances.map((item) => [item.task, item.inputs]));
    // report waits for latest (lint failed, so nobody writes it): skipped, not run.
    expect(Object.keys(byTask)).toEqual(['gated']);
    expect(byTask.gated).toEqual({ arrivals: ['scan#0', 'scan#1'] });
    expect(swarmProgress(run).tasks.find((task) => task.task === 'report')).toMatchObject({
      status: 'skipped',
      reason: expect.stringContaining('†channels.latest'),
    });
  });

  it('reads channel values, paths inside them and deltas once written', () => {
    const run = createSwarmState(definition);
    const first = nextStep(run, 1);
    foldOutcomes(run, first.instances, [ok('out_a', 10), ok('out_b', 20), ok('out_l', 5)], 2);
    const report = nextStep(run, 3).instances.find((item) => item.task === 'report');
    expect(report?.inputs).toMatchObject({
      first: 'out_a',
      total: 30,
      latest: expect.objectContaining({ outId: 'out_l' }),
    });
    expect(report?.inputs.all).toHaveLength(2);
  });

  it('keeps the channel writes in the carried state', () => {
    const run = createSwarmState(definition);
    const first = nextStep(run, 1);
    foldOutcomes(run, first.instances, [ok('out_a'), ok('out_b'), ok('out_l')], 2);
    new FakeResultsStore().store(run, 2, true);
    const next = createSwarmState(definition, { carried: carriedState(run, []) });
    expect(nextStep(next, 3).instances.find((item) => item.task === 'report')?.inputs.first).toBe('out_a');
  });
});
