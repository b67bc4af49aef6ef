import { describe, expect, it } from 'vitest';
import { nestedTask, swarmTaskWorkflowId } from './swarm-task-workflow-id.js';

describe('swarm task workflow ids', () => {
  it('names a swarm: task’s child run under its parent', () => {
    expect(swarmTaskWorkflowId('release-1', 'notes')).toBe('release-1/swarm/notes');
  });

  it('finds <task>.<inner task> in the child run, the rest of the name relative to it', () => {
    expect(nestedTask('release-1', 'notes.publish')).toEqual({
      workflowId: 'release-1/swarm/notes',
      task: 'publish',
    });
    expect(nestedTask('release-1', 'notes.deep.sign')).toEqual({
      workflowId: 'release-1/swarm/notes',
      task: 'deep.sign',
    });
    expect(nestedTask('release-1', 'publish')).toBeUndefined();
    expect(nestedTask('release-1', '.publish')).toBeUndefined();
    expect(nestedTask('release-1', 'notes.')).toBeUndefined();
  });
});
