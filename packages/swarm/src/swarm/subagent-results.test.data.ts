// Test data: the result of a subagent that succeeded, as the swarm tests fold it.

import type { SubagentResult } from '../contracts/agent-contracts.js';
import type { InstanceRecord } from '../contracts/data-plane-contracts.js';
import type { StoredListValue } from '../contracts/stored-list.js';
import { type ResultsPart, resultsParts, storedResultsPart } from './stored-results.js';
import type { SwarmState } from './swarm-state.js';

/**
 * A subagent that succeeded with one output `outId` of 1 byte, its compact payload the out id.
 *
 * @example
 * ```ts
 * foldOutcomes(run, instances, [okResult('out_a'), okResult('out_b', 'a\nb\n')], now);
 * ```
 */
export function okResult(outId: string, preview = ''): SubagentResult {
  return {
    status: 'ok',
    outputs: [{ outId }],
    compact: outId,
    bytes: 1,
    exitCode: 0,
    durationMs: 1,
    preview,
  };
}

/**
 * What the workflow's port does with a loop's results, in memory: stores the parts a run asks
 * for (chunks of instance records, then manifests), records their out ids, and expands a
 * stored list as a worker would.
 *
 * @example
 * ```ts
 * const results = new FakeResultsStore();
 * foldOutcomes(run, instances, outcomes, now);
 * results.store(run, now);
 * results.values(inputs.counts as StoredListValue); // [{ outId: 'out_c0', … }, …]
 * ```
 */
export class FakeResultsStore {
  readonly parts = new Map<string, ResultsPart>();

  /** Stores every part due (`flush`: everything folded, as before continue-as-new). */
  store(run: SwarmState, now: number, flush = false): void {
    for (let parts = resultsParts(run, flush); parts.length > 0; parts = resultsParts(run, flush)) {
      for (const part of parts) {
        const outId = `out_${part.task}_${part.part}${part.seq ?? ''}`;
        this.parts.set(outId, part);
        storedResultsPart(run, part, outId, now);
      }
    }
  }

  /** Every instance record a manifest's chunks hold, in order. */
  records(manifest: string): InstanceRecord[] {
    const part = this.parts.get(manifest);
    if (part?.part !== 'manifest') throw new Error(`${manifest} is no manifest`);
    return part.chunks.flatMap((chunk) => {
      if (chunk.manifest === true) return this.records(chunk.outId);
      const stored = this.parts.get(chunk.outId);
      return stored?.part === 'chunk' ? stored.entries : [];
    });
  }

  /** A stored list's values, as a worker expands it for a script. */
  values(list: StoredListValue): { outId: string | null; status: string }[] {
    return this.records(list.$manifest)
      .filter((record) => record.status === list.status)
      .map((record) => ({ outId: record.outIds[0] ?? null, status: record.status }));
  }
}
