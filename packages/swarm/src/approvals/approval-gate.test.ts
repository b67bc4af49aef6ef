import { describe, expect, it } from 'vitest';
import type { TaskProgress } from '../contracts/progress-contracts.js';
import type { ApprovalDefinition } from '../contracts/swarm-schema.js';
import {
  answerApproval,
  approvalVerdict,
  openApproval,
  pendingApprovals,
  renderPendingApprovals,
} from './approval-gate.js';

const gate = (extra: Partial<ApprovalDefinition> = {}): ApprovalDefinition => ({
  on_timeout: 'reject',
  on_reject: 'skip',
  ...extra,
});
const task = (name: string, extra: Partial<TaskProgress>): TaskProgress => ({
  task: name,
  status: 'waiting',
  instances: { done: 0, total: 1 },
  bytesCaptured: 0,
  outIds: [],
  waitingFor: [],
  ...extra,
});

describe('approval gate', () => {
  it('opens once, with the prompt and a deadline from the timeout', () => {
    const opened = openApproval(gate({ prompt: 'Ship it?', timeout: 60_000 }), undefined, 1_000);
    expect(opened).toEqual({ prompt: 'Ship it?', requestedAt: 1_000, deadline: 61_000 });
    expect(openApproval(gate({ timeout: 5 }), opened, 9_000)).toBe(opened);
    expect(approvalVerdict(gate(), opened, 60_999).verdict).toEqual({ decided: false });
  });

  it('records an answer with its comment and refuses a second one', () => {
    const answered = answerApproval(
      { requestedAt: 1 },
      { task: 'deploy', approve: false, comment: 'not on a Friday', by: 'ana' },
      5,
    );
    expect(answered).toEqual({
      requestedAt: 1,
      decision: 'rejected',
      comment: 'not on a Friday',
      by: 'ana',
      decidedAt: 5,
    });
    expect(answerApproval(answered as never, { task: 'deploy', approve: true }, 6)).toEqual({
      refused: 'task "deploy" was already rejected',
    });
    expect(approvalVerdict(gate(), answered as never, 7).verdict).toEqual({
      decided: true,
      approved: false,
      reason: 'rejected by ana: not on a Friday',
    });
  });

  it('decides an unanswered gate by on_timeout once its deadline passed', () => {
    const { verdict, state } = approvalVerdict(
      gate({ on_timeout: 'approve' }),
      { requestedAt: 0, deadline: 10 },
      10,
    );
    expect(verdict).toEqual({ decided: true, approved: true, reason: 'approved by timeout' });
    expect(state).toMatchObject({ decision: 'approved', timedOut: true, decidedAt: 10 });
  });

  it('lists and renders only gates that wait for an answer', () => {
    const progress = {
      tasks: [
        task('deploy', { approval: { prompt: 'Ship it?', requestedAt: 3 } }),
        task('answered', { approval: { requestedAt: 3, decision: 'approved' } }),
        task('early', { status: 'pending', approval: { requestedAt: 3 } }),
        task('plain', {}),
      ],
    };
    const pending = pendingApprovals(progress);
    expect(pending).toEqual([{ task: 'deploy', prompt: 'Ship it?', requestedAt: 3 }]);
    const text = renderPendingApprovals(pending, 'run-1');
    expect(text).toContain('Waiting for approval');
    expect(text).toContain('`deploy`: Ship it?');
    expect(text).toContain('wharf approve run-1 deploy');
    expect(renderPendingApprovals([], 'run-1')).toBe('');
  });

  it('lists the gates and held tool calls of a swarm: task’s child run (and its children) under <task>.<inner task>', () => {
    const held = {
      task: 'review',
      callId: 'call-1',
      tool: 'shell',
      arguments: '{}',
      requestedAt: 5,
      workflowId: 'run-1/swarm/notes/agent/review',
      owner: 'review',
    };
    const grandchild = {
      swarm: 'inner',
      status: 'waiting' as const,
      step: 1,
      workflowId: 'run-1/swarm/notes/swarm/deep',
      tasks: [task('sign', { approval: { requestedAt: 7 } })],
    };
    const child = {
      swarm: 'notes',
      status: 'waiting' as const,
      step: 2,
      workflowId: 'run-1/swarm/notes',
      tasks: [
        task('publish', { approval: { prompt: 'Publish?', requestedAt: 4 } }),
        task('deep', { status: 'running', child: grandchild }),
      ],
      pendingToolCalls: [held],
    };
    const pending = pendingApprovals({
      tasks: [task('notes', { status: 'running', child }), task('deploy', { approval: { requestedAt: 3 } })],
    });
    expect(pending).toEqual([
      { task: 'deploy', requestedAt: 3 },
      { task: 'notes.publish', prompt: 'Publish?', requestedAt: 4 },
      {
        task: 'notes.review',
        requestedAt: 5,
        call: { id: 'call-1', tool: 'shell', arguments: '{}', workflowId: held.workflowId },
      },
      { task: 'notes.deep.sign', requestedAt: 7 },
    ]);
  });
});
