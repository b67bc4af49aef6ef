import { InvalidOutputEventError, type NotFoundReason } from './errors.js';
import type { RetentionPolicy } from './types.js';

/**
 * How old an unreferenced body must be before a sweep removes it, by default: one hour.
 *
 * @example
 * ```ts
 * await store.sweepOrphanBodies?.({ graceMs: defaultOrphanGraceMs });
 * ```
 */
export const defaultOrphanGraceMs = 60 * 60 * 1000;

/**
 * Checks an orphan sweep's grace period: a non-negative whole number of milliseconds.
 *
 * @example
 * ```ts
 * const graceMs = orphanGraceMs(options.graceMs); // 3600000 when unset
 * ```
 */
export function orphanGraceMs(graceMs: number | undefined): number {
  if (graceMs === undefined) return defaultOrphanGraceMs;
  if (!Number.isSafeInteger(graceMs) || graceMs < 0)
    throw new InvalidOutputEventError('graceMs', 'must be a whole number of milliseconds, 0 or more');
  return graceMs;
}

/**
 * The facts retention needs about one stored output.
 *
 * @example
 * ```ts
 * const candidate: RetentionCandidate = { outId: 'out_x', runId: 'r', sizeBytes: 10, createdMs: 0, expiresMs: undefined };
 * ```
 */
export interface RetentionCandidate {
  readonly outId: string;
  readonly runId: string;
  readonly sizeBytes: number;
  readonly createdMs: number;
  readonly expiresMs: number | undefined;
  /**
   * Kept as long as its run keeps any other output: a run's stored definition, which the run's
   * activities read by ref. Only its own expiry, the run's removal or the age of the run's last
   * output removes it, and the byte cap never evicts it.
   */
  readonly keepWithRun?: boolean;
}

/**
 * Decides which outputs a {@link RetentionPolicy} removes and why, in this order: own expiry
 * and age (`expired`), the run (`deleted`), then oldest first until the total-bytes cap holds
 * (`evicted`). An output that is `keepWithRun` goes only by its own expiry, with its run (`runId`),
 * or, once past the age, when no other output of its run is left (`expired`); the byte cap
 * never evicts it. Pure: the same inputs give the same plan.
 *
 * @example
 * ```ts
 * planRetention(candidates, { maxTotalBytes: 1024 }, Date.now());
 * ```
 */
export function planRetention(
  candidates: readonly RetentionCandidate[],
  policy: RetentionPolicy,
  nowMs: number,
): { outId: string; reason: NotFoundReason }[] {
  const plan: { outId: string; reason: NotFoundReason }[] = [];
  const kept: RetentionCandidate[] = [];
  const anchors: RetentionCandidate[] = [];
  const cutoff = policy.olderThanMs === undefined ? undefined : nowMs - policy.olderThanMs;
  for (const candidate of candidates) {
    if (candidate.expiresMs !== undefined && candidate.expiresMs <= nowMs) {
      plan.push({ outId: candidate.outId, reason: 'expired' });
    } else if (policy.runId !== undefined && candidate.runId === policy.runId) {
      plan.push({ outId: candidate.outId, reason: 'deleted' });
    } else if (candidate.keepWithRun === true) {
      anchors.push(candidate);
    } else if (cutoff !== undefined && candidate.createdMs < cutoff) {
      plan.push({ outId: candidate.outId, reason: 'expired' });
    } else {
      kept.push(candidate);
    }
  }
  if (policy.maxTotalBytes !== undefined) {
    let total = kept.reduce((sum, candidate) => sum + candidate.sizeBytes, 0);
    const oldestFirst = [...kept].sort((left, right) => left.createdMs - right.createdMs);
    for (const candidate of oldestFirst) {
      if (total <= policy.maxTotalBytes) break;
      plan.push({ outId: candidate.outId, reason: 'evicted' });
      total -= candidate.sizeBytes;
    }
  }
  if (anchors.length > 0) {
    const removed = new Set(plan.map((entry) => entry.outId));
    const liveRuns = new Set(kept.filter((candidate) => !removed.has(candidate.outId)).map((c) => c.runId));
    for (const anchor of anchors)
      if (cutoff !== undefined && anchor.createdMs < cutoff && !liveRuns.has(anchor.runId))
        plan.push({ outId: anchor.outId, reason: 'expired' });
  }
  return plan;
}
