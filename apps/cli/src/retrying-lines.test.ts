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
      '1 activity retrying (attempt 2; runScript): no heartbeat from the worker running it in time: that worker died or lost touch with Temporal (its scripts there are stopped); retried on a worker that answers',
      '2 activities retrying (attempt 6; runScript): cannot inspect s3://b/o/…: socket hang up',
    ]);
  });

  it('names the workers whose attempts timed out, while those attempts wait to be retried', () => {
    const heartbeat = { message: 'activity Heartbeat timeout' };
    const lines = retryingLines([
      {
        attempt: 2,
        activityType: { name: 'runSubagent' },
        lastFailure: heartbeat,
        state: 1,
        lastWorkerIdentity: '41@host-b',
      },
      {
        attempt: 2,
        activityType: { name: 'runSubagent' },
        lastFailure: heartbeat,
        state: 'PENDING_ACTIVITY_STATE_SCHEDULED',
        lastWorkerIdentity: '41@host-b',
      },
      // Started again: its worker is the one retrying it, not the one that went silent.
      {
        attempt: 2,
        activityType: { name: 'runSubagent' },
        lastFailure: heartbeat,
        state: 2,
        lastWorkerIdentity: '7@host-a',
      },
      {
        attempt: 3,
        activityType: { name: 'agentStep' },
        lastFailure: { message: 'activity StartToClose timeout' },
        state: 1,
        lastWorkerIdentity: '9@host-c',
      },
      {
        attempt: 2,
        activityType: { name: 'runSubagent' },
        lastFailure: { message: 'boom' },
        state: 1,
        lastWorkerIdentity: '7@host-a',
      },
    ]);
    expect(lines).toEqual([
      '3 activities retrying (attempt 2; runSubagent): no heartbeat from the worker running it in time: that worker died or lost touch with Temporal (its scripts there are stopped); retried on a worker that answers (last on 41@host-b)',
      '1 activity retrying (attempt 3; agentStep): an attempt ran past its time limit (last on 9@host-c)',
      '1 activity retrying (attempt 2; runSubagent): boom',
    ]);
    const many = retryingLines(
      ['a', 'b', 'c', 'd', 'e'].map((host) => ({
        attempt: 2,
        lastFailure: heartbeat,
        state: 1,
        lastWorkerIdentity: `1@${host}`,
      })),
    );
    expect(many[0]).toMatch(/\(last on 1@a, 1@b, 1@c and 2 more\)$/);
  });
});
