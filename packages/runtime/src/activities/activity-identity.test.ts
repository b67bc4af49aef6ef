import { parseSwarm, type TaskDefinition } from '@wharf/swarm';
import { describe, expect, it } from 'vitest';
import { subagentIds, taskJobId } from './activity-identity.js';

const activity = { workflowId: 'wf', runId: 'r', activityId: '1' };
const definition = parseSwarm(`
name: ids
agents:
  a: { model: echo }
tasks:
  fan: { agent: a, loop: { type: repeat, count: 500 }, prompt: Count. }
  summary: { agent: a, depends_on: [fan], prompt: Sum up. }
`);

describe('taskJobId', () => {
  it('names the job a worker of a task or loop instance ran, as subagentIds does', () => {
    const loopInstance = subagentIds(
      {
        task: 'fan',
        instance: 417,
        workflowId: 'wf',
        ownerId: 'o',
        definition: definition.tasks.fan as TaskDefinition,
      },
      activity,
    );
    expect(taskJobId('fan', 417)).toBe(loopInstance.jobId);
    expect(loopInstance.jobId).toBe('fan.417');
    const single = subagentIds(
      {
        task: 'summary',
        instance: 0,
        workflowId: 'wf',
        ownerId: 'o',
        definition: definition.tasks.summary as TaskDefinition,
      },
      activity,
    );
    expect(taskJobId('summary', undefined)).toBe(single.jobId);
    expect(taskJobId('a task/with spaces', 2)).toMatch(/^a_task_with_spaces.2-[0-9a-f]{8}$/);
  });
});
