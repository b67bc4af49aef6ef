import { type Context, contextMessages } from './context.js';
import type { ContextMessage } from './schemas.js';

/**
 * A message as the model may see it: no `_`-prefixed metadata.
 *
 * @example
 * ```ts
 * const visible: ModelMessage = { type: 'data', data: { a: 1 } };
 * ```
 */
export type ModelMessage = Omit<ContextMessage, `_${string}`>;

/**
 * The context as a language model may see it: every message with its `_`-prefixed metadata
 * (`_call`, `_date`, `_outputMethod`, `_path`, `_instance`, …) removed. Keys inside `data` are
 * user data and kept. The context itself is not changed.
 *
 * @example
 * ```ts
 * renderForModel([{ type: 'data', data: { a: 1 }, _date: '2025-10-26T12:00:00Z' }]);
 * // [{ type: 'data', data: { a: 1 } }]
 * ```
 */
export function renderForModel(context: Context): ModelMessage[] {
  return contextMessages(context).map((message) => {
    const visible: Record<string, unknown> = {};
    for (const key of Object.keys(message)) if (!key.startsWith('_')) visible[key] = message[key];
    return visible as ModelMessage;
  });
}
