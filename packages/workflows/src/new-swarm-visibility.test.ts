import { parseSwarm } from '@wharf/swarm';
import { describe, expect, it } from 'vitest';
import { newSwarmVisibility } from './new-swarm-visibility.js';

const definition = parseSwarm(`
name: etl
version: 3
tasks:
  fetch: { script: { content: 'true' } }
  report: { depends_on: [fetch], script: { content: 'true' } }
`);

const named = (pairs: { key: { name: string }; value: unknown }[]) =>
  Object.fromEntries(pairs.map(({ key, value }) => [key.name, value]));

describe('newSwarmVisibility', () => {
  it('names a new swarm: its name, owner, running with nothing pending, and its size in the memo', () => {
    const shown = newSwarmVisibility({ definition, ownerId: 'team' });
    expect(named(shown.searchAttributes)).toEqual({
      WharfSwarm: 'etl',
      WharfOwner: 'team',
      WharfStatus: 'running',
      WharfPendingGates: 0,
    });
    expect(shown.memo).toEqual({ swarm: 'etl', version: definition.version, tasks: 2 });
  });

  it('names the run a re-run re-runs, and the data plane when the starter knows it', () => {
    const rerunOf = { workflowId: 'etl-1', from: 'report', readsFrom: ['etl-1'] };
    const dataPlane = { id: 'plane-a', description: 'store ~/.wharf' };
    const shown = newSwarmVisibility({ definition, ownerId: 'team', rerunOf, dataPlane });
    expect(named(shown.searchAttributes)).toMatchObject({ WharfRerunOf: 'etl-1' });
    // Key order is part of the memo's payload: the workflow's own upsert must match a recorded history.
    expect(Object.keys(shown.memo)).toEqual(['swarm', 'version', 'tasks', 'dataPlane', 'rerunOf']);
    expect(shown.memo).toMatchObject({ dataPlane, rerunOf });
  });
});
