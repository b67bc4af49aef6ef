import { describe, expect, it } from 'vitest';
import { listQuery } from './list-query.js';

describe('listQuery', () => {
  it('lists swarm runs by their search attributes, open ones only for a status a live run has', () => {
    expect(listQuery({})).toBe(`WorkflowType = 'swarmWorkflow' AND ExecutionStatus != "ContinuedAsNew"`);
    expect(listQuery({ swarm: 'etl', owner: 'team-a', status: 'waiting' })).toBe(
      `WorkflowType = 'swarmWorkflow' AND ExecutionStatus != "ContinuedAsNew" AND WharfSwarm = "etl" AND WharfOwner = "team-a" AND WharfStatus = "waiting" AND ExecutionStatus = "Running"`,
    );
    expect(listQuery({ status: 'failed' })).toBe(
      `WorkflowType = 'swarmWorkflow' AND ExecutionStatus != "ContinuedAsNew" AND WharfStatus = "failed"`,
    );
  });

  it('finds runs that ended without a result by how Temporal ended them, and quotes every value', () => {
    expect(listQuery({ status: 'cancelled' })).toBe(
      `WorkflowType = 'swarmWorkflow' AND ExecutionStatus != "ContinuedAsNew" AND ExecutionStatus = "Canceled"`,
    );
    expect(listQuery({ swarm: 'a" OR "1"="1' })).toBe(
      `WorkflowType = 'swarmWorkflow' AND ExecutionStatus != "ContinuedAsNew" AND WharfSwarm = "a\\" OR \\"1\\"=\\"1"`,
    );
  });

  it('refuses a status that is none, naming the statuses', () => {
    expect(() => listQuery({ status: 'done' })).toThrow(
      '--status "done" is not a status; statuses: running, waiting, supervising, completed, failed, cancelled, terminated, timed-out',
    );
  });
});
