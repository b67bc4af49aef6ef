import { resolveContextLimits } from '../contracts/context-limits.js';
import type {
  ContextPool,
  ContextPoolEntry,
  SwarmContextMetrics,
} from '../contracts/relevance-pool-contracts.js';
import type { SwarmDefinition } from '../contracts/swarm-schema.js';

/**
 * Metrics of the context pool: the bytes its outputs hold as stored (`sizes`, by out id; an
 * output missing from it counts 0), how many there are, how many are over the swarm's
 * `max_context_bytes` (a context shows them cut), their mean relevance, when the pool was
 * last pruned.
 *
 * @example
 * ```ts
 * contextMetrics({ definition, pool }, sizes); // { totalBytes: 3145728, taskCount: 4, truncatedCount: 1, … }
 * ```
 */
export function contextMetrics(
  input: { definition: Pick<SwarmDefinition, 'limits'>; pool: ContextPool },
  sizes: ReadonlyMap<string, number>,
): SwarmContextMetrics {
  const { maxBytes } = resolveContextLimits(input.definition.limits);
  const byId = new Map<string, ContextPoolEntry>();
  for (const entry of input.pool.entries) byId.set(entry.taskId, entry);
  let totalBytes = 0;
  let truncatedCount = 0;
  let relevance = 0;
  for (const entry of byId.values()) {
    const size = sizes.get(entry.outId) ?? 0;
    totalBytes += size;
    if (size > maxBytes) truncatedCount++;
    relevance += entry.relevanceScore;
  }
  return {
    totalBytes,
    taskCount: byId.size,
    truncatedCount,
    externalCount: byId.size,
    avgRelevance: byId.size === 0 ? 0 : relevance / byId.size,
    lastPrunedAt: input.pool.lastPrunedAt ?? null,
  };
}
