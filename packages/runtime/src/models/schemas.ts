import { z } from 'zod';

/** One tool call a scripted reply makes: the tool's name and its input. */
export const scriptedToolCallSchema = z.strictObject({
  tool: z.string({ error: 'must name the tool to call' }).min(1, 'must name the tool to call'),
  input: z.record(z.string(), z.unknown()).default({}),
});

/** One reply of a scripted model: text, tool calls, or both; optional token counts. */
export const scriptedReplySchema = z
  .strictObject({
    text: z.string().optional(),
    tool_calls: z.array(scriptedToolCallSchema).optional(),
    usage: z
      .strictObject({
        input_tokens: z.number().int().nonnegative(),
        output_tokens: z.number().int().nonnegative(),
      })
      .optional(),
  })
  .refine((reply) => reply.text !== undefined || (reply.tool_calls?.length ?? 0) > 0, {
    message: 'a reply needs `text` or `tool_calls`',
  });

/**
 * A `scripted:<file>` model's file (YAML or JSON): `replies`, the answers of a conversation's
 * model calls in order.
 */
export const scriptedModelFileSchema = z.strictObject({
  replies: z.array(scriptedReplySchema).min(1, 'a scripted model needs at least one reply'),
});

/** A scripted model's file, validated. */
export type ScriptedModelFile = z.output<typeof scriptedModelFileSchema>;
