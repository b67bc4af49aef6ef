import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** Custom search attributes of a swarm run: find and filter swarms in the Temporal Web UI. */
export const swarmSearchAttributes = {
  /** The swarm's `name`. */
  swarm: defineSearchAttributeKey('WharfSwarm', SearchAttributeType.KEYWORD),
  /** Who started it (`ownerId`). */
  owner: defineSearchAttributeKey('WharfOwner', SearchAttributeType.KEYWORD),
  /** `running`, `waiting` (a gate or a tool call waits for a person), `supervising`, `completed` or `failed`. */
  status: defineSearchAttributeKey('WharfStatus', SearchAttributeType.KEYWORD),
  /** How many approval gates and tool calls wait for an answer now. */
  pendingGates: defineSearchAttributeKey('WharfPendingGates', SearchAttributeType.INT),
  /** The workflow id of the run this one re-runs (`wharf rerun`), on re-runs only. */
  rerunOf: defineSearchAttributeKey('WharfRerunOf', SearchAttributeType.KEYWORD),
} as const;

/**
 * The attributes as `temporal server start-dev --search-attribute` wants them.
 *
 * @example
 * ```ts
 * await startDevServer({ searchAttributes: wharfSearchAttributeKinds });
 * ```
 */
export const wharfSearchAttributeKinds = {
  WharfSwarm: 'Keyword',
  WharfOwner: 'Keyword',
  WharfStatus: 'Keyword',
  WharfPendingGates: 'Int',
  WharfRerunOf: 'Keyword',
} as const;
