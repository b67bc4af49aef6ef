// What a new swarm shows in Temporal's visibility before it has run anything: its search
// attributes and memo. One rule for the client that starts it and the workflow whose first run
// names itself. Deterministic: no clock, no I/O.
import type { SearchAttributePair } from '@temporalio/common';
import type { DataPlaneIdentity, RerunOrigin, SwarmDefinition } from '@wharf/swarm';
import { swarmSearchAttributes } from './search-attributes.js';

/** A new swarm's search attributes and memo. */
export interface NewSwarmVisibility {
  /** `WharfSwarm`, `WharfOwner`, `WharfStatus` (`running`), `WharfPendingGates` (0), and `WharfRerunOf` on a re-run. */
  searchAttributes: SearchAttributePair[];
  /** `swarm`, `version`, `tasks` (how many), and `dataPlane`, `rerunOf` when given. */
  memo: Record<string, unknown>;
}

/**
 * The search attributes and memo of a new swarm run: its name, owner and first status (`running`,
 * nothing pending), and for a re-run the run it re-runs (`WharfRerunOf`, so that run lists its
 * descendants). The client sets them when it starts the workflow; the first run of a chain
 * upserts them, so a swarm started another way is found all the same.
 *
 * @example
 * ```ts
 * const { searchAttributes, memo } = newSwarmVisibility({ definition, ownerId: 'team' });
 * await client.workflow.start('swarmWorkflow', { typedSearchAttributes: searchAttributes, memo, … });
 * ```
 */
export function newSwarmVisibility(options: {
  definition: Pick<SwarmDefinition, 'name' | 'version' | 'tasks'>;
  ownerId: string;
  rerunOf?: RerunOrigin | undefined;
  dataPlane?: DataPlaneIdentity | undefined;
}): NewSwarmVisibility {
  const { definition, ownerId, rerunOf, dataPlane } = options;
  return {
    searchAttributes: [
      { key: swarmSearchAttributes.swarm, value: definition.name },
      { key: swarmSearchAttributes.owner, value: ownerId },
      { key: swarmSearchAttributes.status, value: 'running' },
      { key: swarmSearchAttributes.pendingGates, value: 0 },
      ...(rerunOf === undefined ? [] : [{ key: swarmSearchAttributes.rerunOf, value: rerunOf.workflowId }]),
    ],
    memo: {
      swarm: definition.name,
      version: definition.version,
      tasks: Object.keys(definition.tasks).length,
      ...(dataPlane === undefined ? {} : { dataPlane }),
      ...(rerunOf === undefined ? {} : { rerunOf }),
    },
  };
}
