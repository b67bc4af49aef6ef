// Pure: sums and formats model usage. Workflow-safe.
import type { AgentUsage } from '../contracts/agent-contracts.js';

/**
 * The sum of usages; `costUsd` is present when any part has one. `undefined` parts count 0,
 * and the sum of nothing is `undefined`.
 *
 * @example
 * ```ts
 * addUsage({ calls: 1, inputTokens: 10, outputTokens: 5, totalTokens: 15 }, undefined);
 * // { calls: 1, inputTokens: 10, outputTokens: 5, totalTokens: 15 }
 * ```
 */
export function addUsage(...parts: readonly (AgentUsage | undefined)[]): AgentUsage | undefined {
  let sum: AgentUsage | undefined;
  for (const part of parts) {
    if (part === undefined) continue;
    const base: AgentUsage = sum ?? { calls: 0, inputTokens: 0, outputTokens: 0, totalTokens: 0 };
    const cost =
      base.costUsd === undefined && part.costUsd === undefined
        ? undefined
        : (base.costUsd ?? 0) + (part.costUsd ?? 0);
    sum = {
      calls: base.calls + part.calls,
      inputTokens: base.inputTokens + part.inputTokens,
      outputTokens: base.outputTokens + part.outputTokens,
      totalTokens: base.totalTokens + part.totalTokens,
      ...(cost === undefined ? {} : { costUsd: roundCost(cost) }),
    };
  }
  return sum;
}

/**
 * The swarm's usage: every task's and the supervisor's, summed.
 *
 * @example
 * ```ts
 * const usage = swarmUsage(result.tasks, result.supervisor);
 * ```
 */
export function swarmUsage(
  tasks: readonly { usage?: AgentUsage | undefined }[],
  supervisor?: { usage?: AgentUsage | undefined },
): AgentUsage | undefined {
  return addUsage(...tasks.map((task) => task.usage), supervisor?.usage);
}

/**
 * A short line for tables and terminals: `1.2k in / 340 out tok · $0.0031`.
 *
 * @example
 * ```ts
 * formatUsage({ calls: 2, inputTokens: 1200, outputTokens: 340, totalTokens: 1540, costUsd: 0.0031 });
 * // '1.2k in / 340 out tok · $0.0031'
 * ```
 */
export function formatUsage(usage: AgentUsage | undefined): string {
  if (usage === undefined) return '';
  const cost = usage.costUsd === undefined ? '' : ` · $${usage.costUsd.toFixed(4)}`;
  return `${formatTokens(usage.inputTokens)} in / ${formatTokens(usage.outputTokens)} out tok${cost}`;
}

function formatTokens(count: number): string {
  if (count < 1000) return String(count);
  if (count < 1_000_000) return `${(count / 1000).toFixed(1)}k`;
  return `${(count / 1_000_000).toFixed(2)}M`;
}

/** Cost sums are kept to micro-dollars so float noise never shows. */
function roundCost(cost: number): number {
  return Math.round(cost * 1_000_000) / 1_000_000;
}
