import type { AgentUsage } from '@wharf/swarm';
import type { ModelPrice } from '../models/model-registry.js';

/**
 * The AI SDK's `usage` as Wharf counts it: tokens of `calls` model calls, priced when the
 * model registry has a price for the model.
 *
 * @example
 * ```ts
 * usageOf(result.usage, models.price?.('openai:gpt-4o-mini'));
 * // { calls: 1, inputTokens: 812, outputTokens: 95, totalTokens: 907, costUsd: 0.000179 }
 * ```
 */
export function usageOf(
  usage: {
    inputTokens?: number | undefined;
    outputTokens?: number | undefined;
    totalTokens?: number | undefined;
  },
  price: ModelPrice | undefined,
  calls = 1,
): AgentUsage {
  const inputTokens = usage.inputTokens ?? 0;
  const outputTokens = usage.outputTokens ?? 0;
  return {
    calls,
    inputTokens,
    outputTokens,
    totalTokens: usage.totalTokens ?? inputTokens + outputTokens,
    ...(price === undefined
      ? {}
      : {
          costUsd:
            Math.round(inputTokens * price.inputPerMillion + outputTokens * price.outputPerMillion) /
            1_000_000,
        }),
  };
}
