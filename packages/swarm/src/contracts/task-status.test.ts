import { describe, expect, it } from 'vitest';
import type { TaskStatus } from './progress-contracts.js';
import { FINISHED_TASK_STATUSES, isFailure, isFinished, isOpen } from './task-status.js';

const statuses: TaskStatus[] = ['pending', 'waiting', 'running', 'done', 'failed', 'skipped', 'cancelled'];

describe('task status predicates', () => {
  it('splits every status into open, running or finished, exactly one each', () => {
    for (const status of statuses) {
      const kinds = [isOpen(status), status === 'running', isFinished(status)].filter(Boolean);
      expect(kinds, status).toHaveLength(1);
    }
    expect([...FINISHED_TASK_STATUSES].sort()).toEqual(['cancelled', 'done', 'failed', 'skipped']);
  });

  it('counts failed and cancelled tasks as failures, never a skipped one', () => {
    expect(statuses.filter(isFailure)).toEqual(['failed', 'cancelled']);
  });
});
