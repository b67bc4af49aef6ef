import type { JsonValue } from '@wharf/common';
import { z } from 'zod';

/**
 * How an output is combined with older writes to the same path when it is read:
 * `set` (default, last write wins), `merge` (deep object merge), `push` (append one item),
 * `concat` (append the items of an array).
 *
 * @example
 * ```ts
 * outputMethodSchema.parse('merge');
 * ```
 */
export const outputMethodSchema = z.enum(['set', 'merge', 'push', 'concat']);

/**
 * Any JSON value, parsed as the read-only {@link JsonValue}.
 *
 * @example
 * ```ts
 * jsonValueSchema.parse({ a: [1, 'x', null] });
 * ```
 */
export const jsonValueSchema: z.ZodType<JsonValue> = z.json();

/**
 * A tool call: `_`-prefixed metadata (`_tool`, `_outputPath`, `_outputMethod`, `_instance`) and
 * any other keys as its arguments.
 *
 * @example
 * ```ts
 * const call = callSchema.parse({ _tool: 'lookup', id: '†data.user.id', _outputPath: '†data.user.profile' });
 * ```
 */
export const callSchema = z.looseObject({
  _tool: z.string().min(1).optional(),
  _outputPath: z.string().min(1).optional(),
  _outputMethod: outputMethodSchema.optional(),
  _instance: z.string().min(1).optional(),
});

/**
 * A context message: `type` (`data`, `state`, `input`, or any other kind), optional JSON `data`,
 * and the hidden metadata of outputs (`_call`, `_date`, `_outputMethod`, `_path`, `_instance`).
 * Other keys (e.g. `content` of a chat message) are kept as they are.
 *
 * @example
 * ```ts
 * const message = contextMessageSchema.parse({ type: 'data', data: { user: { name: 'Alex' } } });
 * ```
 */
export const contextMessageSchema = z.looseObject({
  type: z.string().min(1),
  data: jsonValueSchema.optional(),
  _call: callSchema.optional(),
  _date: z.iso.datetime({ offset: true }).optional(),
  _outputMethod: outputMethodSchema.optional(),
  _path: z.string().optional(),
  _instance: z.string().min(1).optional(),
});

/**
 * The JSON-schema fragment a tool declares for its `_outputPath` argument: `const` prescribes
 * one path, `pattern` (and/or `enum`) lets the model choose among allowed ones.
 *
 * @example
 * ```ts
 * outputPathSchemaFragment.parse({ type: 'string', pattern: '^†' });
 * ```
 */
export const outputPathSchemaFragment = z.looseObject({
  type: z.literal('string').optional(),
  const: z.string().optional(),
  pattern: z.string().optional(),
  enum: z.array(z.string()).optional(),
});

/**
 * See {@link outputMethodSchema}.
 *
 * @example
 * ```ts
 * const method: OutputMethod = 'push';
 * ```
 */
export type OutputMethod = z.infer<typeof outputMethodSchema>;
/**
 * See {@link callSchema}.
 *
 * @example
 * ```ts
 * const call: Call = { _tool: 'search', q: '†input.q', _outputPath: '†data.hits' };
 * ```
 */
export type Call = z.infer<typeof callSchema>;
/**
 * See {@link contextMessageSchema}.
 *
 * @example
 * ```ts
 * const message: ContextMessage = { type: 'state', data: { step: 1 } };
 * ```
 */
export type ContextMessage = z.infer<typeof contextMessageSchema>;
/**
 * See {@link outputPathSchemaFragment}.
 *
 * @example
 * ```ts
 * const fragment: OutputPathSchema = { type: 'string', const: '†data.user.summary' };
 * ```
 */
export type OutputPathSchema = z.infer<typeof outputPathSchemaFragment>;
