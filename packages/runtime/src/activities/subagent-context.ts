import { utf8CutAfter } from '@wharf/common';
import { OutputNotFoundError, type OutputStore, readBody } from '@wharf/output-store';
import type { ContextPlan } from '@wharf/swarm';
import {
  type LoadedContextEntry,
  maskedTombstone,
  type RenderedContext,
  renderContext,
} from './render-context.js';

/** Bytes read past the budget: enough to end the first character past it (UTF-8: ≤ 4 bytes). */
const LOOKAHEAD = 8;

/**
 * The context text of a subagent: reads the bodies its plan chose from the output store and
 * renders them (`=== RELEVANT CONTEXT ===` … totals line) exactly as {@link renderContext} would
 * with the whole bodies in memory. Bodies are read in order and only
 * as far as the remaining budget (plus a few bytes), so a context of `maxBytes` reads about
 * `maxBytes` whatever the outputs' sizes. A masked output becomes a tombstone with its size and
 * out id; a body that does not fit whole is replaced by the summary its subagent stored beside
 * it (`truncation_strategy: summary`, label `stream: summary`) when that fits; an output the store no longer has is shown as gone instead of failing the task (other
 * store errors propagate, so the activity retries). A loop the plan shows only some outputs of
 * is named with its manifest (`plan.loops`).
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
): Promise<RenderedContext | undefined> {
  if (plan === undefined || (plan.entries.length === 0 && (plan.loops ?? []).length === 0)) return undefined;
  const loaded: LoadedContextEntry[] = [];
  let used = 0;
  for (const entry of plan.entries.slice(0, plan.maxTasks)) {
    const output: LoadedContextEntry = {
      taskId: entry.taskId,
      outId: entry.outId,
      relevance: entry.relevance,
      masked: entry.masked === true,
      content: '',
      sizeBytes: 0,
      truncated: false,
    };
    try {
      const record = await store.stat({ outId: entry.outId });
      output.sizeBytes = record.sizeBytes;
      if (!output.masked && record.sizeBytes > 0) {
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
        if (!whole) {
          // `truncation_strategy: summary`: a body that does not fit shows its stored summary instead, when that fits.
          const summary = await storedSummary(store, record.producer, remaining);
          if (summary !== undefined) {
            output.content = summary;
            output.truncated = false;
          }
        }
      }
    } catch (error) {
      if (!OutputNotFoundError.isNotFound(error)) throw error;
      output.masked = false;
      output.content = `[output ${entry.outId} no longer available: ${error.message}]`;
    }
    loaded.push(output);
    // The renderer stops at the first output that does not fit: so can the reading.
    const shown = Buffer.byteLength(output.masked ? maskedTombstone(output) : output.content, 'utf8');
    if (used + shown > plan.maxBytes) break;
    used += shown;
  }
  return renderContext({
    entries: loaded,
    maxBytes: plan.maxBytes,
    maxTasks: plan.maxTasks,
    ...(plan.loops === undefined ? {} : { loops: plan.loops }),
  });
}

/** The summary a subagent stored beside its stdout (label `stream: summary`), if it fits `maxBytes`. */
async function storedSummary(
  store: OutputStore,
  producer: { runId: string; spawnId: string },
  maxBytes: number,
): Promise<string | undefined> {
  const page = await store.list({
    runId: producer.runId,
    spawnId: producer.spawnId,
    labels: { stream: 'summary' },
    limit: 1,
  });
  const record = page.records[0];
  if (record === undefined || record.sizeBytes > maxBytes) return undefined;
  const { bytes } = await readBody(store, { outId: record.outId });
  return bytes.toString('utf8');
}
