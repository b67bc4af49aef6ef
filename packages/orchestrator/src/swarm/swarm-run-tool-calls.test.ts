import { describe, expect, it } from 'vitest';
import { approveCommand, pendingApprovals, renderPendingApprovals } from '../control/approval-gate.js';
import { parseSwarm } from '../dsl/parse-swarm.js';
import type { PendingToolCall } from '../shared/types.js';
import { okResult } from './subagent-results.test.data.js';
import { SwarmRun } from './swarm-run.js';

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
    const run = new SwarmRun({ definition });
    const { instances } = run.nextStep(1);
    run.noteToolCall({ call: held('clean#0', 'call-0-0'), open: true });
    run.noteToolCall({ call: held('clean#1', 'call-0-0'), open: true });
    run.noteToolCall({
      call: held('clean#1.spawn-1', 'call-1-0', { owner: 'clean#1', workflowId: 'wf/agent/clean#1/spawn/1' }),
      open: true,
    });
    // The same call told twice is listed once.
    run.noteToolCall({ call: held('clean#0', 'call-0-0'), open: true });
    expect(run.progress().pendingToolCalls?.map((call) => `${call.task} ${call.callId}`)).toEqual([
      'clean#1 call-0-0',
      'clean#1.spawn-1 call-1-0',
      'clean#0 call-0-0',
    ]);
    const gates = pendingApprovals(run.progress());
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

    const next = new SwarmRun({ definition, carried: JSON.parse(JSON.stringify(run.carry())) });
    expect(next.pendingToolCalls()).toEqual(run.pendingToolCalls());

    next.noteToolCall({ call: held('clean#0', 'call-0-0'), open: false });
    expect(next.pendingToolCalls().map((call) => call.task)).toEqual(['clean#1', 'clean#1.spawn-1']);
    // clean#1 ended: its calls, and those of the worker it spawned, wait no more.
    next.fold(instances.slice(1), [okResult('out_1')], 9);
    expect(next.pendingToolCalls()).toEqual([]);
    expect(next.progress()).not.toHaveProperty('pendingToolCalls');
  });
});
