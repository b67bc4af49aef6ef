// The outputs a wide loop pooled, read back from a run's history when its result does not
// record them (a run from before `TaskProgress.pooled`).

import type { PooledLoopOutput, SubagentResult } from '@wharf/swarm';
import { POOL_PER_LOOP } from '@wharf/swarm';

/**
 * The results of a loop's highest instances, as they come (undecoded): a few more than the pool
 * keeps, never all of them, however wide the loop.
 *
 * @example
 * ```ts
 * const last = new LastInstances<Payloads>();
 * last.add(499, payloads);
 * last.newestFirst()[0]; // [499, payloads]
 * ```
 */
export class LastInstances<TResult> {
  readonly #kept = new Map<number, TResult>();

  /** Keeps instance `instance`'s result while it is among the 2 × `POOL_PER_LOOP` highest seen. */
  add(instance: number, result: TResult): void {
    this.#kept.set(instance, result);
    if (this.#kept.size <= 2 * POOL_PER_LOOP) return;
    this.#kept.delete(Math.min(...this.#kept.keys()));
  }

  /** The kept results, highest instance first. */
  newestFirst(): [number, TResult][] {
    return [...this.#kept].sort(([left], [right]) => right - left);
  }
}

/**
 * The outputs the context pool held for a wide loop, from the results of its last instances: a
 * loop's instances fold in instance order, so the pool kept the main outputs of its last
 * `POOL_PER_LOOP` instances that stored one, in instance order, each at the loop's end
 * (`endedAt`; a loop folds in one step unless a history bound cut it). Decodes only as many
 * results as it needs.
 *
 * @example
 * ```ts
 * const pooled = await historyPooled('fan', last, progress.endedAt, (payloads) => reader.decode(payloads));
 * pooled.at(-1); // { taskId: 'fan#499', outId: 'out_…', pooledAt: progress.endedAt }
 * ```
 */
export async function historyPooled<TResult>(
  task: string,
  last: LastInstances<TResult>,
  endedAt: number,
  decode: (result: TResult) => Promise<SubagentResult>,
): Promise<PooledLoopOutput[]> {
  const pooled: PooledLoopOutput[] = [];
  for (const [instance, encoded] of last.newestFirst()) {
    if (pooled.length === POOL_PER_LOOP) break;
    const result = await decode(encoded);
    const outId = result.outputs[0]?.outId;
    if (outId !== undefined)
      pooled.unshift({ taskId: `${task}#${instance}`, outId, pooledAt: result.pooledAt ?? endedAt });
  }
  return pooled;
}
