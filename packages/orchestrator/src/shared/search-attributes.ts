import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** Custom search attributes of a swarm run: find and filter swarms in the Temporal Web UI. */
export const swarmSearchAttributes = {
  /** The swarm's `name`. */
  swarm: defineSearchAttributeKey('WharfSwarm', SearchAttributeType.KEYWORD),
  /** Who started it (`ownerId`). */
  owner: defineSearchAttributeKey('WharfOwner', SearchAttributeType.KEYWORD),
  /** `running`, `supervising`, `completed` or `failed`. */
  status: defineSearchAttributeKey('WharfStatus', SearchAttributeType.KEYWORD),
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
} as const;
