// Pure: the value a loop's output path receives — its instances' values, stored as a list.
// Workflow-safe.

/**
 * What a loop task's `output` path holds once the task ended: not one value per instance, but
 * its stored list (the task's manifest, whose records of this `status` are the values). Scripts
 * see it expanded (`WHARF_INPUTS`: the array of values, as a task without a loop writes one); a
 * map loop over it reads each item from the store; agents get the manifest to read.
 *
 * @example
 * ```ts
 * const value: StoredListValue = { $manifest: 'out_…', count: 5000, status: 'ok' };
 * ```
 */
export interface StoredListValue {
  /** The manifest of the loop's instance records. */
  $manifest: string;
  /** How many of its records are this list's (those of `status`). */
  count: number;
  status: 'ok' | 'failed';
}

/**
 * True for a {@link StoredListValue}.
 *
 * @example
 * ```ts
 * isStoredListValue({ $manifest: 'out_x', count: 2, status: 'ok' }); // true
 * isStoredListValue(['a']); // false
 * ```
 */
export function isStoredListValue(value: unknown): value is StoredListValue {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const record = value as Record<string, unknown>;
  return (
    typeof record.$manifest === 'string' &&
    typeof record.count === 'number' &&
    (record.status === 'ok' || record.status === 'failed')
  );
}

/**
 * The value of one task output as a stored output: its `outId` when the value is what a task
 * without a loop writes at its output path (`{ outId, outIds, status, … }`), else undefined.
 *
 * @example
 * ```ts
 * storedOutputOf({ outId: 'out_a', outIds: ['out_a'], status: 'ok', bytes: 3, exitCode: 0, preview: 'a' }); // 'out_a'
 * ```
 */
export function storedOutputOf(value: unknown): string | null | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  if (!Array.isArray(record.outIds) || typeof record.status !== 'string') return undefined;
  return typeof record.outId === 'string' ? record.outId : null;
}
