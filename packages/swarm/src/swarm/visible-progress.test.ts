import { describe, expect, it } from 'vitest';
import type { PendingToolCall } from '../contracts/progress-contracts.js';
import { parseSwarm } from '../dsl/parse-swarm.js';
import { foldOutcomes } from './fold-step.js';
import { noteToolCall } from './pending-tool-calls.js';
import { nextStep } from './plan-step.js';
import { okResult } from './subagent-results.test.data.js';
import { swarmProgress, swarmStatus } from './swarm-report.js';
import { createSwarmState } from './swarm-state.js';
import { answerTaskApproval } from './task-requests.js';
import { visibleProgress, waitingMemo } from './visible-progress.js';

const definition = parseSwarm(`
name: release
agents:
  ops: { model: echo, tools: [{ name: shell, approval: true }] }
tasks:
  build: { script: { content: 'true' } }
  deploy: { depends_on: [build], approval: { prompt: Ship it? }, script: { content: 'true' } }
  clean: { agent: ops, prompt: Clean. }
`);

const call: PendingToolCall = {
  task: 'clean',
  callId: 'call-1',
  tool: 'shell',
  arguments: '{"command":"rm -rf dist"}',
  requestedAt: 5,
  workflowId: 'wf/agent/clean',
  owner: 'clean',
};

describe('visibleProgress', () => {
  it('shows a running swarm with nothing waiting: the table, an empty memo, no gate', () => {
    const state = createSwarmState(definition);
    const shown = visibleProgress(state, 'wf');
    expect(shown).toMatchObject({
      memo: { pendingApprovals: [], pendingToolCalls: [] },
      status: 'running',
      pendingGates: 0,
    });
    expect(shown.details).toContain('build');
  });

  it('reads `waiting` while a gate or a held tool call waits, and lists both with their commands', () => {
    const state = createSwarmState(definition);
    foldOutcomes(state, nextStep(state, 1).instances.slice(0, 1), [okResult('out_build')], 2);
    state.pendingCalls = noteToolCall(state.pendingCalls, { call, open: true });
    expect(nextStep(state, 3).instances).toEqual([]);
    const shown = visibleProgress(state, 'wf');
    expect(shown.status).toBe('waiting');
    expect(swarmStatus(state)).toBe('waiting');
    expect(swarmProgress(state).status).toBe('waiting');
    expect(shown.pendingGates).toBe(2);
    expect(shown.memo).toEqual({
      pendingApprovals: ['deploy'],
      pendingToolCalls: [
        {
          task: 'clean',
          callId: 'call-1',
          tool: 'shell',
          arguments: call.arguments,
          workflowId: 'wf/agent/clean',
        },
      ],
    });
    expect(shown.details).toContain('wharf approve wf deploy');
    answerTaskApproval(state, { task: 'deploy', approve: true }, 4);
    state.pendingCalls = noteToolCall(state.pendingCalls, { call, open: false });
    expect(visibleProgress(state, 'wf')).toMatchObject({ status: 'running', pendingGates: 0 });
  });

  it("shows the swarm's phase once it supervises or has ended, whatever waits", () => {
    const state = createSwarmState(definition);
    state.pendingCalls = noteToolCall(state.pendingCalls, { call, open: true });
    state.status = 'supervising';
    expect(visibleProgress(state, 'wf')).toMatchObject({ status: 'supervising', pendingGates: 1 });
    state.status = 'failed';
    expect(swarmStatus(state)).toBe('failed');
  });

  it('is a pure read: showing the state twice shows the same and changes nothing', () => {
    const state = createSwarmState(definition);
    nextStep(state, 1);
    const before = JSON.stringify(swarmProgress(state));
    expect(visibleProgress(state, 'wf')).toEqual(visibleProgress(state, 'wf'));
    expect(JSON.stringify(swarmProgress(state))).toBe(before);
  });
});

describe('waitingMemo', () => {
  it('reads what a predecessor run left in the memo, empty lists when it left nothing', () => {
    expect(waitingMemo(undefined)).toEqual({ pendingApprovals: [], pendingToolCalls: [] });
    expect(waitingMemo({ swarm: 'release', pendingApprovals: ['deploy'], pendingToolCalls: 'junk' })).toEqual(
      {
        pendingApprovals: ['deploy'],
        pendingToolCalls: [],
      },
    );
  });
});
