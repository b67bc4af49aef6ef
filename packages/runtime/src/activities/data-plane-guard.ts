import { ApplicationFailure } from '@temporalio/common';
import type { DataPlaneIdentity } from '@wharf/swarm';
import { wharfFailureTypes } from '@wharf/swarm';

/**
 * Throws a non-retryable `WharfWrongDataPlane` failure when `expected` (the data plane an
 * activity's input says its run belongs to) is not `own` (this worker's): its outputs would
 * land in a store the run never reads. The message names both, without credentials. Passes
 * when either is unknown (a run started without one, a worker built without one).
 *
 * @example
 * ```ts
 * checkDataPlane(input.dataPlane, { id: 'dp_1f…', description: 'store /srv/.wharf/outputs.db, …' });
 * ```
 */
export function checkDataPlane(
  expected: DataPlaneIdentity | undefined,
  own: DataPlaneIdentity | undefined,
): void {
  if (expected === undefined || own === undefined || expected.id === own.id) return;
  // The data planes last: a task's reason keeps the end of a long message.
  throw ApplicationFailure.nonRetryable(
    'wrong data plane (run it on a worker of its own: the same data directory, or the same WHARF_STORE and WHARF_BLOBS): ' +
      `the run belongs to ${expected.id} (${expected.description}), this worker to ${own.id} (${own.description})`,
    wharfFailureTypes.wrongDataPlane,
  );
}

/**
 * The same activities, each checking first that its input's `dataPlane` (when it has one) is
 * `own` (see {@link checkDataPlane}): a worker never runs another data plane's work.
 *
 * @example
 * ```ts
 * const activities = guardDataPlane(createActivities(dependencies), data.dataPlane);
 * ```
 */
export function guardDataPlane<TActivities extends object>(
  activities: TActivities,
  own: DataPlaneIdentity | undefined,
): TActivities {
  if (own === undefined) return activities;
  const guarded: Record<string, unknown> = {};
  for (const [name, activity] of Object.entries(activities)) {
    guarded[name] =
      typeof activity !== 'function'
        ? activity
        : (input: unknown, ...rest: unknown[]) => {
            checkDataPlane(dataPlaneOf(input), own);
            return (activity as (...args: unknown[]) => unknown)(input, ...rest);
          };
  }
  return guarded as TActivities;
}

function dataPlaneOf(input: unknown): DataPlaneIdentity | undefined {
  if (typeof input !== 'object' || input === null || !('dataPlane' in input)) return undefined;
  const value = (input as { dataPlane?: unknown }).dataPlane;
  if (typeof value !== 'object' || value === null) return undefined;
  const { id, description } = value as Partial<DataPlaneIdentity>;
  return typeof id === 'string' && typeof description === 'string' ? { id, description } : undefined;
}
