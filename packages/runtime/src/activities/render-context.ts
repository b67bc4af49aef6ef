import { truncateToBytes } from '@wharf/stdio-limits';
import type { ContextLoopNote } from '@wharf/swarm';

/** One chosen output with as much of its body as the context may show. */
export interface LoadedContextEntry {
  taskId: string;
  outId: string;
  relevance: number;
  /** Shown as a tombstone with its size and out id. */
  masked: boolean;
  /** The body read (whole, or its start), or what stands in for it. */
  content: string;
  /** Bytes of the whole stored body. */
  sizeBytes: number;
  /** `content` is only the start of the body. */
  truncated: boolean;
}

/** One output placed in a context. */
export interface RenderedContextEntry {
  taskId: string;
  relevance: number;
  /** Bytes of the body placed in the context (the tombstone's bytes when masked). */
  bytes: number;
  /** The body was cut to fit the remaining budget. */
  cut: boolean;
  masked: boolean;
}

/** A task's context as text, with what it holds. */
export interface RenderedContext {
  text: string;
  tasks: RenderedContextEntry[];
  totalBytes: number;
}

/**
 * The tombstone that stands in for a masked output: its size and where the whole body is.
 *
 * @example
 * ```ts
 * maskedTombstone({ outId: 'out_a1', sizeBytes: 4096 }); // '[output masked: 4096 bytes; full text at out_a1]'
 * ```
 */
export function maskedTombstone(entry: Pick<LoadedContextEntry, 'outId' | 'sizeBytes'>): string {
  return `[output masked: ${entry.sizeBytes} bytes; full text at ${entry.outId}]`;
}

/**
 * The line that names a loop whose outputs the context shows only some of, and where all of
 * them are listed.
 *
 * @example
 * ```ts
 * loopNoteLine({ task: 'fan', shown: 10, total: 5000, manifest: 'out_m' });
 * // 'Loop fan: 10 of 5000 outputs shown; all 5000 are listed in manifest out_m (agents: read_input; scripts: wharf outputs refs out_m)'
 * ```
 */
export function loopNoteLine(note: ContextLoopNote): string {
  const head = `Loop ${note.task}: ${note.shown} of ${note.total} outputs shown`;
  return note.manifest === undefined
    ? `${head} (the loop is still running: its manifest is written when it ends)`
    : `${head}; all ${note.total} are listed in manifest ${note.manifest} (agents: read_input; scripts: wharf outputs refs ${note.manifest})`;
}

/**
 * The context text: outputs in order until `maxTasks` or `maxBytes`; the first one that does not
 * fit is cut to the remaining bytes (on a character boundary) when more than 100 remain; then a
 * line per loop the context shows only some outputs of (its manifest, outside the byte budget:
 * a line per loop task); the text ends with the totals line.
 *
 * @example
 * ```ts
 * renderContext({ entries: [{ taskId: 'fetch', outId, relevance: 1, masked: false, content: 'rows: 120', sizeBytes: 9, truncated: false }], maxBytes: 100_000, maxTasks: 10 }).text;
 * // '=== RELEVANT CONTEXT ===\n\nTask: fetch (relevance: 1.00)\nrows: 120\n\n=== END CONTEXT (1 tasks, 9 bytes) ===\n'
 * ```
 */
export function renderContext(context: {
  entries: readonly LoadedContextEntry[];
  maxBytes: number;
  maxTasks: number;
  loops?: readonly ContextLoopNote[];
}): RenderedContext {
  const parts = ['=== RELEVANT CONTEXT ===\n\n'];
  const tasks: RenderedContextEntry[] = [];
  let totalBytes = 0;
  for (const entry of context.entries) {
    if (tasks.length >= context.maxTasks) break;
    let body = entry.masked ? maskedTombstone(entry) : entry.content;
    let bytes = Buffer.byteLength(body, 'utf8');
    let cut = false;
    if (totalBytes + bytes > context.maxBytes) {
      const remaining = context.maxBytes - totalBytes;
      if (remaining <= 100) break;
      body = truncateToBytes(body, remaining);
      bytes = Buffer.byteLength(body, 'utf8');
      cut = true;
    }
    parts.push(`Task: ${entry.taskId} (relevance: ${entry.relevance.toFixed(2)})\n`);
    if ((entry.truncated && !entry.masked) || cut) parts.push('[Output was truncated]\n');
    parts.push(`${body}\n\n`);
    totalBytes += bytes;
    tasks.push({ taskId: entry.taskId, relevance: entry.relevance, bytes, cut, masked: entry.masked });
    if (cut) break;
  }
  for (const note of context.loops ?? []) {
    // As many as the budget let through, which may be fewer than planned.
    const shown = tasks.filter((task) => task.taskId.startsWith(`${note.task}#`)).length;
    parts.push(`${loopNoteLine({ ...note, shown })}\n\n`);
  }
  parts.push(`=== END CONTEXT (${tasks.length} tasks, ${totalBytes} bytes) ===\n`);
  return { text: parts.join(''), tasks, totalBytes };
}
