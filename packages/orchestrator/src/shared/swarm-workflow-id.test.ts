import { describe, expect, it } from 'vitest';
import { WharfOrchestratorError } from '../orchestrator-error.js';
import { swarmWorkflowId } from './swarm-workflow-id.js';

describe('swarmWorkflowId', () => {
  it('reads workflowId, and runId from inputs of runs started before the rename', () => {
    expect(swarmWorkflowId({ workflowId: 'swarm-2', runId: 'older' })).toBe('swarm-2');
    expect(swarmWorkflowId({ runId: 'swarm-1' })).toBe('swarm-1');
  });

  it('refuses an input that names no workflow id', () => {
    let thrown: unknown;
    try {
      swarmWorkflowId({});
    } catch (error) {
      thrown = error;
    }
    expect(WharfOrchestratorError.isInstance(thrown) && thrown.code).toBe('INVALID_REQUEST');
  });
});
