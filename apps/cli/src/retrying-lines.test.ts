import { describe, expect, it } from 'vitest';
import { retryingLines } from './retrying-lines.js';

describe('retryingLines', () => {
  it('says nothing while no activity has failed', () => {
    expect(retryingLines([])).toEqual([]);
    expect(retryingLines([{ attempt: 1, activityType: { name: 'runScript' }, lastFailure: null }])).toEqual(
      [],
    );
  });

  it('groups the retrying activities by their last failure, with their highest attempt and kinds', () => {
    const down =
      'data plane unavailable at postgres://wharf@db:5432/wharf: connect ECONNREFUSED\n    at stack';
    expect(
      retryingLines([
        { attempt: 2, activityType: { name: 'runScript' }, lastFailure: { message: down } },
        { attempt: 4, activityType: { name: 'runScript' }, lastFailure: { message: down } },
        { attempt: 3, activityType: { name: 'agentStep' }, lastFailure: { message: down } },
        {
          attempt: 2,
          activityType: { name: 'runScript' },
          lastFailure: { message: 'activity Heartbeat timeout' },
        },
        { attempt: 1, activityType: { name: 'runScript' } },
        {
          attempt: 5,
          activityType: { name: 'runScript' },
          lastFailure: { message: `cannot inspect s3://b/o/ab/${'ab'.repeat(32)}: socket hang up` },
        },
        {
          attempt: 6,
          activityType: { name: 'runScript' },
          lastFailure: { message: `cannot inspect s3://b/o/cd/${'cd'.repeat(32)}: socket hang up` },
        },
      ]),
    ).toEqual([
      '3 activities retrying (attempt 4; agentStep, runScript): data plane unavailable at postgres://wharf@db:5432/wharf: connect ECONNREFUSED',
      '1 activity retrying (attempt 2; runScript): activity Heartbeat timeout',
      '2 activities retrying (attempt 6; runScript): cannot inspect s3://b/o/…: socket hang up',
    ]);
  });
});
