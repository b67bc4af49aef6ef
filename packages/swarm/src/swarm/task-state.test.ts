import { describe, expect, it } from 'vitest';
import type { TaskState } from '../contracts/progress-contracts.js';
import { WharfOrchestratorError } from '../orchestrator-error.js';
import { TaskBoard } from './task-board.js';
import { nextTaskState, PENDING_TASK, type TaskEvent } from './task-state.js';

const gate = { prompt: 'Ship?', timeout: 1_000, on_timeout: 'reject', on_reject: 'skip' } as const;

function after(events: TaskEvent[], from: TaskState = PENDING_TASK): TaskState {
  return events.reduce(
    (state, event, index) => nextTaskState('deploy', state, event, (index + 1) * 100),
    from,
  );
}

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(WharfOrchestratorError.isInstance(error)).toBe(true);
    expect((error as WharfOrchestratorError).code).toBe('INVALID_REQUEST');
    return (error as Error).message;
  }
  throw new Error('not refused');
}

describe('nextTaskState', () => {
  it('runs a task from pending through waiting and running to done, with its times', () => {
    const state = after([{ type: 'wait', waitingFor: ['†input.who'] }, { type: 'start' }, { type: 'end' }]);
    expect(state).toEqual({ status: 'done', waitingFor: [], startedAt: 200, endedAt: 300 });
  });

  it('changes nothing it is given', () => {
    const running = after([{ type: 'start', total: 3 }]);
    const frozen = Object.freeze({ ...running });
    expect(nextTaskState('deploy', frozen, { type: 'instance-failed', reason: 'exit 1' }, 5)).toMatchObject({
      status: 'failed',
      reason: 'exit 1',
      total: 3,
    });
    expect(frozen.status).toBe('running');
  });

  it('keeps a failed instance failed and a cancelled task cancelled when the last instance ends', () => {
    expect(
      after([{ type: 'start' }, { type: 'instance-failed', reason: 'exit 2' }, { type: 'end' }]),
    ).toMatchObject({
      status: 'failed',
      reason: 'exit 2',
      endedAt: 300,
    });
    const cancelled = after([
      { type: 'start' },
      { type: 'cancel', reason: 'not needed' },
      { type: 'instance-failed', reason: 'killed' },
      { type: 'end' },
    ]);
    expect(cancelled).toMatchObject({ status: 'cancelled', reason: 'not needed', endedAt: 400 });
  });

  it('refuses a move its status does not allow, naming the task', () => {
    const done = after([{ type: 'start' }, { type: 'end' }]);
    expect(refusal(() => nextTaskState('deploy', done, { type: 'start' }, 1))).toBe(
      'task deploy is done: it cannot start',
    );
    expect(refusal(() => nextTaskState('deploy', PENDING_TASK, { type: 'end' }, 1))).toBe(
      'task deploy is pending: it cannot end',
    );
    expect(refusal(() => nextTaskState('deploy', done, { type: 'skip', reason: 'x' }, 1))).toBe(
      'task deploy is done: it cannot skip',
    );
  });

  it('cancels an unfinished task once; a finished one stays as it is', () => {
    const cancelled = after([{ type: 'wait', waitingFor: ['†data.a'] }, { type: 'cancel' }]);
    expect(cancelled).toMatchObject({ status: 'cancelled', reason: 'cancelled by request', endedAt: 200 });
    const done = after([{ type: 'start' }, { type: 'end' }]);
    expect(nextTaskState('deploy', done, { type: 'cancel', reason: 'late' }, 9)).toBe(done);
  });

  it('fails a task whose inputs never resolved, naming what it waited for', () => {
    const state = after([{ type: 'wait', waitingFor: ['†input.who', '†data.a'] }, { type: 'unresolved' }]);
    expect(state).toMatchObject({ status: 'failed', reason: 'inputs never resolved: †input.who, †data.a' });
  });

  it('holds a task at its gate; a rejection skips it, a second answer is refused', () => {
    const held = after([{ type: 'gate', gate }]);
    expect(held).toMatchObject({
      status: 'waiting',
      waitingFor: ['approval'],
      approval: { prompt: 'Ship?', requestedAt: 100, deadline: 1_100 },
    });
    const request = { task: 'deploy', approve: false, comment: 'not today', by: 'ana' };
    const rejected = nextTaskState('deploy', held, { type: 'answer', gate, request }, 200);
    expect(rejected).toMatchObject({
      status: 'skipped',
      reason: 'rejected by ana: not today',
      endedAt: 200,
      approval: { decision: 'rejected', decidedAt: 200 },
    });
    expect(refusal(() => nextTaskState('deploy', rejected, { type: 'answer', gate, request }, 300))).toBe(
      'task deploy already skipped',
    );
    const approved = nextTaskState(
      'deploy',
      held,
      { type: 'answer', gate, request: { ...request, approve: true } },
      200,
    );
    expect(approved.status).toBe('waiting');
    expect(refusal(() => nextTaskState('deploy', approved, { type: 'answer', gate, request }, 300))).toBe(
      'task deploy was already approved',
    );
  });

  it('decides an unanswered gate by its timeout, even once the task was cancelled', () => {
    const held = after([{ type: 'gate', gate }]);
    expect(nextTaskState('deploy', held, { type: 'expire', gate }, 1_000)).toEqual(held);
    expect(nextTaskState('deploy', held, { type: 'expire', gate }, 1_100)).toMatchObject({
      status: 'skipped',
      reason: 'rejected by timeout',
      approval: { timedOut: true },
    });
    const cancelled = nextTaskState('deploy', held, { type: 'cancel' }, 500);
    expect(nextTaskState('deploy', cancelled, { type: 'expire', gate }, 2_000)).toMatchObject({
      status: 'cancelled',
      approval: { decision: 'rejected', timedOut: true },
    });
  });
});

describe('TaskBoard', () => {
  it('is the one writer: apply goes through nextTaskState, check only asks, readers get frozen states', () => {
    const board = new TaskBoard(['fetch', 'report']);
    board.check('fetch', { type: 'start' }, 1);
    expect(board.get('fetch').status).toBe('pending');
    const running = board.apply('fetch', { type: 'start' }, 1);
    expect(Object.isFrozen(running)).toBe(true);
    expect(() => board.apply('fetch', { type: 'start' }, 2)).toThrow(
      'task fetch is running: it cannot start',
    );
    expect(board.get('fetch')).toBe(running);
    expect(board.snapshot()).toEqual({
      fetch: { status: 'running', waitingFor: [], startedAt: 1 },
      report: { status: 'pending', waitingFor: [] },
    });
    expect(new TaskBoard(['fetch', 'report'], board.snapshot()).get('fetch')).toEqual(running);
    expect(() => board.get('ghost')).toThrow('unknown task "ghost"; tasks: fetch, report');
  });
});
