import { DEFAULT_LIMITS } from './limits.js';
import { maskOutput } from './mask.js';
import { relevanceScorer } from './relevance.js';
import type { ContextConfig, TaskOutput, WorkflowDefinition } from './schemas.js';
import { truncateToBytes } from './truncate.js';
import type { WorkflowState } from './workflow-state.js';

/** Options of {@link buildSmartContext}. */
export interface SmartContextOptions {
  currentTaskId: string;
  workflow: WorkflowDefinition;
  state: WorkflowState;
  /** Context limits; missing fields come from the default limits. */
  config?: Partial<ContextConfig>;
  /** Current time in epoch milliseconds (inject it; defaults to `Date.now()`). */
  now?: number;
}

/** One output placed in the context. */
export interface ContextEntry {
  taskId: string;
  relevance: number;
  /** Bytes of the body placed in the context (the tombstone's bytes when masked). */
  bytes: number;
  /** The body was cut to fit the remaining budget. */
  cut: boolean;
  masked: boolean;
}

/** Result of {@link buildSmartContext}. */
export interface SmartContext {
  /** The context text, '' when the task takes no context. */
  text: string;
  tasks: ContextEntry[];
  totalBytes: number;
  /** Why no context was built, when it was not. */
  disabled?: 'inject_context' | 'mode_none';
}

/** One output chosen for a task's context, in the order it will appear. */
export interface ContextCandidate {
  output: TaskOutput;
  /** Relevance of the output to the task the context is for. */
  relevance: number;
  /** Shown as a tombstone (masking keeps only the most recent outputs in full). */
  masked: boolean;
}

/** Result of {@link selectContext}: what {@link renderContext} turns into text. */
export interface ContextSelection {
  /** At most `maxTasks` outputs, most relevant first. */
  candidates: ContextCandidate[];
  maxBytes: number;
  maxTasks: number;
  /** Why no context is built, when it is not. */
  disabled?: 'inject_context' | 'mode_none';
}

/**
 * Builds the context for a task from the outputs most relevant to it. Candidates are scored for
 * the current task, filtered by the threshold (or the task's `min_relevance`), ordered by
 * relevance, then most recent completion, then task id, and added until `max_tasks` or
 * `max_bytes` is reached; the last output that does not fit is cut to the remaining bytes when
 * more than 100 remain. With `maskKeepRecent`, only the N most recent outputs are shown in full
 * and older ones become tombstones. The task's `context` block (`include_tasks`,
 * `exclude_tasks`, `mode`, `min_relevance`, `max_bytes`) and `inject_context: false` apply.
 *
 * The same as `renderContext(selectContext(options))`.
 *
 * @example
 * ```ts
 * const context = buildSmartContext({ currentTaskId: 'process', workflow, state, now: Date.now() });
 * context.text; // '=== RELEVANT CONTEXT ===\n\nTask: fetch (relevance: 1.00)\n…=== END CONTEXT (1 tasks, 52 bytes) ===\n'
 * ```
 */
export function buildSmartContext(options: SmartContextOptions): SmartContext {
  return renderContext(selectContext(options));
}

/**
 * The choosing half of {@link buildSmartContext}: which outputs, in which order, with which
 * relevance, and which are masked. It reads no output content, so a caller that keeps bodies
 * elsewhere (an output store) can choose from metadata and load only the chosen bodies.
 *
 * @example
 * ```ts
 * const selection = selectContext({ currentTaskId: 'report', workflow, state, now });
 * selection.candidates.map((candidate) => candidate.output.taskId); // ['process', 'fetch']
 * ```
 */
export function selectContext(options: SmartContextOptions): ContextSelection {
  const task = options.workflow.tasks?.[options.currentTaskId];
  const control = task?.context ?? {};
  const config = options.config ?? {};
  const maxBytes = control.max_bytes ?? config.maxBytes ?? DEFAULT_LIMITS.max_context_bytes;
  const maxTasks = config.maxTasks ?? DEFAULT_LIMITS.max_context_tasks;
  if (task?.inject_context === false)
    return { candidates: [], maxBytes, maxTasks, disabled: 'inject_context' };
  if (control.mode === 'none') return { candidates: [], maxBytes, maxTasks, disabled: 'mode_none' };
  const now = options.now ?? Date.now();
  const threshold = control.min_relevance ?? config.relevanceThreshold ?? DEFAULT_LIMITS.relevance_threshold;
  const score = relevanceScorer({
    currentTaskId: options.currentTaskId,
    workflow: options.workflow,
    state: options.state,
    now,
  });
  const excluded = new Set(control.exclude_tasks ?? []);
  const oldest = config.timeWindowSecs === undefined ? undefined : now - config.timeWindowSecs * 1000;
  const eligible = (output: TaskOutput | undefined): output is TaskOutput =>
    output !== undefined &&
    output.taskId !== options.currentTaskId &&
    !excluded.has(output.taskId) &&
    (oldest === undefined || output.completedAt >= oldest);

  let scored: { output: TaskOutput; relevance: number }[];
  if (control.mode === 'manual') {
    scored = (control.include_tasks ?? [])
      .map((taskId) => options.state.taskOutputs[taskId])
      .filter(eligible)
      .map((output) => ({ output, relevance: score(output.taskId) }));
  } else {
    const included = control.include_tasks ? new Set(control.include_tasks) : undefined;
    scored = Object.values(options.state.taskOutputs)
      .filter((output) => eligible(output) && (included === undefined || included.has(output.taskId)))
      .map((output) => ({ output, relevance: score(output.taskId) }))
      .filter((candidate) => candidate.relevance >= threshold)
      .sort(
        (a, b) =>
          b.relevance - a.relevance ||
          b.output.completedAt - a.output.completedAt ||
          (a.output.taskId < b.output.taskId ? -1 : a.output.taskId > b.output.taskId ? 1 : 0),
      );
  }
  const fullText = recentSet(
    scored.map((candidate) => candidate.output),
    config.maskKeepRecent,
  );
  const candidates = scored.slice(0, maxTasks).map(({ output, relevance }) => ({
    output,
    relevance,
    masked: fullText !== undefined && !fullText.has(output.taskId),
  }));
  return { candidates, maxBytes, maxTasks };
}

/**
 * The writing half of {@link buildSmartContext}: the context text of a selection. Outputs are
 * added in order until `maxTasks` or `maxBytes`; the first one that does not fit is cut to the
 * remaining bytes when more than 100 remain, and the text ends with the totals line.
 *
 * @example
 * ```ts
 * renderContext({ candidates: [{ output, relevance: 1, masked: false }], maxBytes: 100_000, maxTasks: 10 }).text;
 * // '=== RELEVANT CONTEXT ===\n\nTask: fetch (relevance: 1.00)\nrows: 120\n\n=== END CONTEXT (1 tasks, 9 bytes) ===\n'
 * ```
 */
export function renderContext(selection: ContextSelection): SmartContext {
  if (selection.disabled !== undefined)
    return { text: '', tasks: [], totalBytes: 0, disabled: selection.disabled };
  const parts = ['=== RELEVANT CONTEXT ===\n\n'];
  const tasks: ContextEntry[] = [];
  let totalBytes = 0;
  for (const { output, relevance, masked } of selection.candidates) {
    if (tasks.length >= selection.maxTasks) break;
    let body = masked ? maskOutput(output) : output.content;
    let bytes = Buffer.byteLength(body, 'utf8');
    let cut = false;
    if (totalBytes + bytes > selection.maxBytes) {
      const remaining = selection.maxBytes - totalBytes;
      if (remaining <= 100) break;
      body = truncateToBytes(body, remaining);
      bytes = Buffer.byteLength(body, 'utf8');
      cut = true;
    }
    parts.push(`Task: ${output.taskId} (relevance: ${relevance.toFixed(2)})\n`);
    if ((output.truncated && !masked) || cut) parts.push('[Output was truncated]\n');
    parts.push(`${body}\n\n`);
    totalBytes += bytes;
    tasks.push({ taskId: output.taskId, relevance, bytes, cut, masked });
    if (cut) break;
  }
  parts.push(`=== END CONTEXT (${tasks.length} tasks, ${totalBytes} bytes) ===\n`);
  return { text: parts.join(''), tasks, totalBytes };
}

/** Ids of the `keep` most recently completed outputs, or undefined when masking is off. */
function recentSet(outputs: TaskOutput[], keep: number | undefined): Set<string> | undefined {
  if (keep === undefined) return undefined;
  const recent = [...outputs].sort(
    (a, b) => b.completedAt - a.completedAt || (a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : 0),
  );
  return new Set(recent.slice(0, keep).map((output) => output.taskId));
}
