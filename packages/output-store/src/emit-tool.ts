import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { OutputRef, OutputStore, Producer } from './types.js';

/**
 * Input of the EMIT tool, as the model fills it in.
 *
 * @example
 * ```ts
 * const input = emitToolInputSchema.parse({ content: '# Report', name: 'report.md' });
 * ```
 */
export const emitToolInputSchema = z.object({
  content: z.string().describe('The complete output body. Put the whole result here, not a summary.'),
  name: z.string().min(1).max(1024).optional().describe('A file-like name for the output, e.g. report.md'),
  contentType: z
    .string()
    .min(1)
    .max(256)
    .optional()
    .describe('Media type, e.g. text/markdown or application/json'),
  labels: z
    .record(z.string().min(1).max(128), z.string().max(1024))
    .optional()
    .describe('Small key/value tags'),
});

/**
 * A validated EMIT tool call.
 *
 * @example
 * ```ts
 * const input: EmitToolInput = { content: '# Report', contentType: 'text/markdown' };
 * ```
 */
export type EmitToolInput = z.infer<typeof emitToolInputSchema>;

/**
 * What the EMIT tool returns to the model: only the small ref and facts about the body.
 *
 * @example
 * ```ts
 * const result: EmitToolResult = { outId: 'out_3fZ8kQ1xP0aLm2Vb', sizeBytes: 5120 };
 * ```
 */
export interface EmitToolResult {
  readonly outId: string;
  readonly sizeBytes: number;
}

const description =
  'Hand in your output. Call this once with the full body of your result; it is stored and you get back a ' +
  'small reference (outId). Do not repeat the body in your final answer: reply with the outId only.';

/**
 * The EMIT tool as a provider-neutral definition: name, description and a plain JSON schema
 * of its input (for frameworks other than the AI SDK; `@wharf/output-store/ai` has the AI SDK tool).
 *
 * @example
 * ```ts
 * const tools = [{ type: 'function', function: { name: emitToolDefinition.name,
 *   description: emitToolDefinition.description, parameters: emitToolDefinition.inputJsonSchema } }];
 * ```
 */
export const emitToolDefinition = {
  name: 'emit',
  description,
  inputJsonSchema: z.toJSONSchema(emitToolInputSchema) as Record<string, unknown>,
} as const;

/**
 * Options of {@link createEmitHandler}.
 *
 * @example
 * ```ts
 * const options: EmitHandlerOptions = { store, producer, keyPrefix: 'wf-1/act-3' };
 * ```
 */
export interface EmitHandlerOptions {
  readonly store: OutputStore;
  readonly producer: Producer;
  /** Prefix of the idempotency keys, e.g. workflow and activity id. */
  readonly keyPrefix: string;
  /**
   * Key of one call. Default: prefix plus the body's SHA-256, so a retried attempt that emits
   * the same body gets the same ref and a different body never conflicts.
   */
  readonly idempotencyKey?: (input: EmitToolInput, callIndex: number) => string;
  /** Labels every output gets, over the call's own (e.g. the task and attempt). */
  readonly labels?: Readonly<Record<string, string>>;
  /** Media type of a call that names none. Default: the store's. */
  readonly contentType?: string;
  /** Told of every stored output, in call order (e.g. to list the refs a run produced). */
  readonly onEmit?: (ref: OutputRef, result: EmitToolResult) => void;
}

/**
 * The EMIT tool's implementation against a store: validates the call, stores the body and
 * returns `{ outId, sizeBytes }`.
 *
 * @example
 * ```ts
 * const emitOutput = createEmitHandler({ store, producer, keyPrefix: 'wf-1/act-3' });
 * const { outId } = await emitOutput({ content: '# Report', name: 'report.md' });
 * ```
 */
export function createEmitHandler(options: EmitHandlerOptions): (input: unknown) => Promise<EmitToolResult> {
  let calls = 0;
  return async (raw) => {
    const input = emitToolInputSchema.parse(raw);
    const callIndex = calls++;
    const key =
      options.idempotencyKey?.(input, callIndex) ??
      `${options.keyPrefix}/${createHash('sha256').update(input.content).digest('hex')}`;
    const contentType = input.contentType ?? options.contentType;
    const labels =
      input.labels === undefined && options.labels === undefined
        ? undefined
        : { ...input.labels, ...options.labels };
    const ref: OutputRef = await options.store.emit({
      producer: options.producer,
      content: { kind: 'text', text: input.content },
      idempotencyKey: key,
      ...(input.name === undefined ? {} : { name: input.name }),
      ...(contentType === undefined ? {} : { contentType }),
      ...(labels === undefined ? {} : { labels }),
    });
    const result = { outId: ref.outId, sizeBytes: Buffer.byteLength(input.content) };
    options.onEmit?.(ref, result);
    return result;
  };
}
