import { OutputNotFoundError, type OutputStore, readBody } from '@wharf/output-store';
import {
  type ContextCandidate,
  maskOutput,
  renderContext,
  type SmartContext,
  utf8CutAfter,
} from '@wharf/stdio-limits';
import type { ContextPlan } from '../shared/types.js';
import { storedOutput } from './context-pool.js';

/** Bytes read past the budget: enough to end the first character past it (UTF-8: ≤ 4 bytes). */
const LOOKAHEAD = 8;

/**
 * The context text of a subagent: reads the bodies its plan chose from the output store and
 * renders them in stdio-limits' format (`=== RELEVANT CONTEXT ===` … totals line), exactly as
 * `buildSmartContext` would with the whole bodies in memory. Bodies are read in order and only
 * as far as the remaining budget (plus a few bytes), so a context of `maxBytes` reads about
 * `maxBytes` whatever the outputs' sizes. A masked output becomes a tombstone with its size and
 * out id; an output the store no longer has is shown as gone instead of failing the task (other
 * store errors propagate, so the activity retries).
 *
 * @example
 * ```ts
 * const context = await subagentContext(input.context, store);
 * context?.text; // '=== RELEVANT CONTEXT ===\n\nTask: fetch (relevance: 1.00)\nrows: 120\n\n=== END CONTEXT (1 tasks, 9 bytes) ===\n'
 * ```
 */
export async function subagentContext(
  plan: ContextPlan | undefined,
  store: OutputStore,
): Promise<SmartContext | undefined> {
  if (plan === undefined || plan.entries.length === 0) return undefined;
  const candidates: ContextCandidate[] = [];
  let used = 0;
  for (const entry of plan.entries.slice(0, plan.maxTasks)) {
    const output = storedOutput(entry.taskId, entry.outId, entry.relevance);
    let masked = entry.masked === true;
    try {
      const record = await store.stat({ outId: entry.outId });
      output.originalSize = record.sizeBytes;
      if (!masked && record.sizeBytes > 0) {
        const remaining = Math.max(0, plan.maxBytes - used);
        const end = Math.min(record.sizeBytes, remaining + LOOKAHEAD);
        const { bytes } = await readBody(store, { outId: entry.outId }, { start: 0, end });
        const whole = end === record.sizeBytes;
        // Keep one whole character past the budget, so the renderer sees the body does not fit
        // and cuts it there, as it would the whole body.
        output.content = (whole ? bytes : bytes.subarray(0, utf8CutAfter(bytes, remaining + 1))).toString(
          'utf8',
        );
        output.truncated = !whole;
      }
    } catch (error) {
      if (!OutputNotFoundError.isNotFound(error)) throw error;
      masked = false;
      output.content = `[output ${entry.outId} no longer available: ${error.message}]`;
    }
    candidates.push({ output, relevance: entry.relevance, masked });
    // The renderer stops at the first output that does not fit: so can the reading.
    const shown = Buffer.byteLength(masked ? maskOutput(output) : output.content, 'utf8');
    if (used + shown > plan.maxBytes) break;
    used += shown;
  }
  return renderContext({ candidates, maxBytes: plan.maxBytes, maxTasks: plan.maxTasks });
}
