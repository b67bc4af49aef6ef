import { type Tool, tool } from 'ai';
import {
  createEmitHandler,
  type EmitHandlerOptions,
  type EmitToolInput,
  type EmitToolResult,
  emitToolDefinition,
  emitToolInputSchema,
} from '../emit-tool.js';

/**
 * The EMIT tool as a Vercel AI SDK `tool`: register it as `emit` and the model hands in its
 * output through it, getting back only `{ outId, sizeBytes }`.
 *
 * @example
 * ```ts
 * import { generateText } from 'ai';
 * import { createEmitTool } from '@wharf/output-store/ai';
 * const result = await generateText({
 *   model, prompt: 'Write the report and emit it.',
 *   tools: { emit: createEmitTool({ store, producer, keyPrefix: 'wf-1/act-3' }) },
 * });
 * ```
 */
export function createEmitTool(options: EmitHandlerOptions): Tool<EmitToolInput, EmitToolResult> {
  const handler = createEmitHandler(options);
  return tool({
    description: emitToolDefinition.description,
    inputSchema: emitToolInputSchema,
    execute: (input) => handler(input),
  });
}
