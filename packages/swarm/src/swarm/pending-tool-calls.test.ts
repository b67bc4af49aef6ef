import { describe, expect, it } from 'vitest';
import { approveCommand, pendingApprovals, renderPendingApprovals } from '../approvals/approval-gate.js';
import type { PendingToolCall } from '../contracts/progress-contracts.js';
import { parseSwarm } from '../dsl/parse-swarm.js';
import { foldOutcomes } from './fold-step.js';
import { endToolCalls, noteToolCall } from './pending-tool-calls.js';
import { nextStep } from './plan-step.js';
import { okResult } from './subagent-results.test.data.js';
import { swarmProgress } from './swarm-report.js';
import { carriedState, createSwarmState } from './swarm-state.js';

const definition = parseSwarm(`
name: held
agents:
  ops: { model: echo, tools: [{ name: shell, approval: true }] }
tasks:
  clean: { agent: ops, loop: { type: repeat, count: 2 }, prompt: Clean. }
`);

function held(owner: string, callId: string, extra: Partial<PendingToolCall> = {}): PendingToolCall {
  return {
    task: owner,
    callId,
    tool: 'shell',
    arguments: '{"command":"rm -rf dist"}',
    requestedAt: 5,
    workflowId: `wf/agent/${owner}`,
    owner,
    ...extra,
  };
}

describe('the tool calls a swarm shows as waiting', () => {
  it('lists what its agent workflows say waits, carries it over, and drops it when they say it no longer does or end', () => {
    const run = createSwarmState(definition);
    const { instances } = nextStep(run, 1);
    run.pendingCalls = noteToolCall(run.pendingCalls, { call: held('clean#0', 'call-0-0'), open: true });
    run.pendingCalls = noteToolCall(run.pendingCalls, { call: held('clean#1', 'call-0-0'), open: true });
    run.pendingCalls = noteToolCall(run.pendingCalls, {
      call: held('clean#1.spawn-1', 'call-1-0', { owner: 'clean#1', workflowId: 'wf/agent/clean#1/spawn/1' }),
      open: true,
    });
    // The same call told twice is listed once.
    run.pendingCalls = noteToolCall(run.pendingCalls, { call: held('clean#0', 'call-0-0'), open: true });
    expect(swarmProgress(run).pendingToolCalls?.map((call) => `${call.task} ${call.callId}`)).toEqual([
      'clean#1 call-0-0',
      'clean#1.spawn-1 call-1-0',
      'clean#0 call-0-0',
    ]);
    const gates = pendingApprovals(swarmProgress(run));
    expect(gates[0]).toEqual({
      task: 'clean#1',
      requestedAt: 5,
      call: {
        id: 'call-0-0',
        tool: 'shell',
        arguments: '{"command":"rm -rf dist"}',
        workflowId: 'wf/agent/clean#1',
      },
    });
    expect(approveCommand('wf', gates[0] ?? { task: '', requestedAt: 0 })).toBe(
      'wharf approve wf clean#1 --call call-0-0 [--reject] [--comment …]',
    );
    expect(renderPendingApprovals(gates, 'wf')).toContain(
      '- `clean#1` calls `shell` `{"command":"rm -rf dist"}` — `wharf approve wf clean#1 --call call-0-0 [--reject] [--comment …]`',
    );

    const next = createSwarmState(definition, { carried: JSON.parse(JSON.stringify(carriedState(run, []))) });
    expect([...next.pendingCalls]).toEqual([...run.pendingCalls]);

    next.pendingCalls = noteToolCall(next.pendingCalls, { call: held('clean#0', 'call-0-0'), open: false });
    expect([...next.pendingCalls].map((call) => call.task)).toEqual(['clean#1', 'clean#1.spawn-1']);
    // clean#1 ended: its calls, and those of the worker it spawned, wait no more.
    foldOutcomes(next, instances.slice(1), [okResult('out_1')], 9);
    expect([...next.pendingCalls]).toEqual([]);
    expect(swarmProgress(next)).not.toHaveProperty('pendingToolCalls');
  });
});

describe('noteToolCall and endToolCalls', () => {
  it('return the next list and leave the one given as it was', () => {
    const calls = [held('clean#0', 'call-0-0'), held('clean#1', 'call-1-0')];
    const before = structuredClone(calls);
    expect(noteToolCall(calls, { call: held('clean#0', 'call-0-1'), open: true })).toHaveLength(3);
    expect(noteToolCall(calls, { call: held('clean#0', 'call-0-0'), open: false })).toEqual([calls[1]]);
    expect(endToolCalls(calls, 'clean#1')).toEqual([calls[0]]);
    expect(calls).toEqual(before);
    expect(endToolCalls([], 'clean#1')).toEqual([]);
  });
});
