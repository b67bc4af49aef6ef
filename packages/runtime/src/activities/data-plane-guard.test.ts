import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { checkDataPlane, guardDataPlane } from './data-plane-guard.js';

const mine = {
  id: 'dp_aaaaaaaaaaaaaaaa',
  description: 'store /srv/a/outputs.db, blobs /srv/a/outputs.db.blobs',
};
const theirs = {
  id: 'dp_bbbbbbbbbbbbbbbb',
  description: 'store postgres://wharf@db:5432/wharf, blobs s3://wharf',
};

describe('the data-plane check at activity entry', () => {
  it('refuses work of another data plane non-retryably, naming both', () => {
    let failure: unknown;
    try {
      checkDataPlane(theirs, mine);
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(ApplicationFailure);
    const refused = failure as ApplicationFailure;
    expect(refused.nonRetryable).toBe(true);
    expect(refused.type).toBe('WharfWrongDataPlane');
    expect(refused.message).toContain(`the run belongs to ${theirs.id} (${theirs.description})`);
    expect(refused.message).toContain(`this worker to ${mine.id} (${mine.description})`);
  });

  it('passes its own data plane, and work or workers that name none', () => {
    expect(() => checkDataPlane(mine, mine)).not.toThrow();
    expect(() => checkDataPlane(undefined, mine)).not.toThrow();
    expect(() => checkDataPlane(theirs, undefined)).not.toThrow();
  });

  it('guards every activity before it runs', async () => {
    const ran: string[] = [];
    const activities = guardDataPlane(
      {
        async runSubagent(input: { task: string }) {
          ran.push(input.task);
          return input.task;
        },
      },
      mine,
    );
    await expect(activities.runSubagent({ task: 'a', dataPlane: mine } as { task: string })).resolves.toBe(
      'a',
    );
    await expect(activities.runSubagent({ task: 'b' })).resolves.toBe('b');
    expect(() => activities.runSubagent({ task: 'c', dataPlane: theirs } as { task: string })).toThrow(
      'wrong data plane',
    );
    expect(ran).toEqual(['a', 'b']);
  });
});
