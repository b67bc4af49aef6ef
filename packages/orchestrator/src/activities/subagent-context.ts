import { OutputNotFoundError, type OutputStore } from '@wharf/output-store';
import { renderContext, type SmartContext, type TaskOutput, utf8CutBefore } from '@wharf/stdio-limits';
import type { ContextPlan } from '../shared/types.js';

/**
 * The context text of a subagent: reads the bodies its plan chose from the output store —
 * only about the first `maxBytes` of each, since the context never shows more — and renders them in
 * stdio-limits' format (`=== RELEVANT CONTEXT ===` … totals line). A masked output becomes a
 * tombstone with its size and out id; an output the store no longer has is shown as such
 * instead of failing the task.
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
  const candidates = await Promise.all(
    plan.entries.map(async (entry) => {
      const output: TaskOutput = {
        taskId: entry.taskId,
        outputType: 'stdout',
        content: '',
        originalSize: 0,
        truncated: false,
        strategy: 'head',
        filePath: entry.outId,
        relevanceScore: entry.relevance,
        completedAt: entry.completedAt,
        lastAccessed: entry.completedAt,
        dependedBy: [],
      };
      try {
        const record = await store.stat({ outId: entry.outId });
        output.originalSize = record.sizeBytes;
        if (!entry.masked && record.sizeBytes > 0) {
          // A few bytes past the budget show whether the cut would split a character.
          const end = Math.min(record.sizeBytes, plan.maxBytes + 4);
          const body = await store.openBody({ outId: entry.outId }, { start: 0, end });
          const chunks: Uint8Array[] = [];
          for await (const chunk of body.stream) chunks.push(chunk as Uint8Array);
          const bytes = Buffer.concat(chunks);
          const whole = end === record.sizeBytes;
          output.content = (whole ? bytes : bytes.subarray(0, utf8CutBefore(bytes, plan.maxBytes))).toString(
            'utf8',
          );
          output.truncated = !whole;
        }
      } catch (error) {
        if (!OutputNotFoundError.isInstance(error)) throw error;
        output.content = `[output ${entry.outId} no longer available: ${error.message}]`;
      }
      return { output, relevance: entry.relevance, masked: entry.masked };
    }),
  );
  return renderContext({ candidates, maxBytes: plan.maxBytes, maxTasks: plan.maxTasks });
}
