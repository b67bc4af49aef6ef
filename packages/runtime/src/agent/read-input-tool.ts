import { type ListReadScope, type OutputRecord, type OutputStore, readBody } from '@wharf/output-store';
import { type Tool, tool } from 'ai';
import { z } from 'zod';

/** Most bytes one `read_input` call returns. */
export const READ_LIMIT = 16_000;

/** Options of {@link readInputTool}. */
export interface ReadInputToolOptions {
  store: OutputStore;
  /** The task's IN_REFS, named in the tool's description. */
  inRefs: readonly string[];
  /** Out ids the agent may read (its IN_REFS and the outputs of its context). */
  readable: ReadonlySet<string>;
  /** Other stored outputs it may read (e.g. its own tool outputs); default none. */
  mayRead?: (record: OutputRecord) => boolean;
  /**
   * The owner and runs every read must stay inside, whatever the lists above say: an out id
   * forged into an input value (`{ $manifest: … }`) never reaches another owner's outputs.
   */
  scope: ListReadScope;
}

/**
 * The `read_input` tool: a byte range (at most {@link READ_LIMIT}) of an output the agent may
 * read; anything else is refused in words the model understands.
 *
 * @example
 * ```ts
 * const tools = { read_input: readInputTool({ store, inRefs, readable: new Set(inRefs), scope: { ownerId, runIds: [runId] } }) };
 * ```
 */
export function readInputTool(options: ReadInputToolOptions): Tool {
  const { store, readable, mayRead, scope } = options;
  return tool({
    description: `Read one of your inputs (IN_REFS: ${options.inRefs.join(', ') || 'none'})${mayRead === undefined ? '' : ' or a full tool output you were pointed to'}, optionally a byte range.`,
    inputSchema: z.object({
      out_id: z.string(),
      offset: z.number().int().nonnegative().optional(),
      length: z.number().int().positive().max(READ_LIMIT).optional(),
    }),
    execute: async ({ out_id, offset, length }) => {
      const refused = `refused: ${out_id} is not one of your inputs`;
      if (!readable.has(out_id) && mayRead === undefined) return refused;
      const record = await store.stat({ outId: out_id }).catch(() => undefined);
      if (record === undefined || !inScope(record, scope)) return refused;
      if (!readable.has(out_id) && mayRead?.(record) !== true) return refused;
      const { sizeBytes } = record;
      const start = Math.min(offset ?? 0, sizeBytes);
      const end = Math.min(start + (length ?? READ_LIMIT), sizeBytes);
      const body = await readBody(store, { outId: out_id }, { start, end });
      return `${out_id} bytes ${body.start}-${body.end} of ${body.record.sizeBytes}:\n${body.bytes.toString('utf8')}`;
    },
  });
}

function inScope(record: OutputRecord, scope: ListReadScope): boolean {
  return (
    record.producer.ownerId === scope.ownerId &&
    (scope.runIds === undefined || scope.runIds.includes(record.producer.runId))
  );
}
