import type { ContextLog } from './context-log.js';
import { ContextResolverError } from './context-resolver-error.js';
import type { Resolution } from './fold.js';
import { parseReference, type Reference } from './path.js';
import { type ResolveOptions, scanResolve } from './scan-resolve.js';
import type { ContextMessage } from './schemas.js';
import { messageWrites } from './writes.js';

/**
 * What the resolving functions accept: an indexed {@link ContextLog}, or a plain message array
 * (resolved by scanning, appended to with `push`).
 *
 * @example
 * ```ts
 * const context: Context = new ContextLog();
 * const plain: Context = [{ type: 'data', data: { a: 1 } }];
 * ```
 */
export type Context = ContextLog | ContextMessage[];

type KindResolver = (path: readonly string[]) => Resolution;

/**
 * Resolves one reference in either kind of {@link Context}.
 *
 * @example
 * ```ts
 * resolveReference([{ type: 'data', data: { a: null } }], '†data.a'); // { found: true, value: null }
 * resolveReference([], '†data.a'); // { found: false }
 * resolveReference([], '†env.HOME', { kinds: { env: () => ({ found: true, value: '/root' }) } }); // { found: true, value: '/root' }
 * ```
 */
export function resolveReference(
  context: Context,
  reference: string | Reference,
  options: ResolveOptions = {},
): Resolution {
  if (options.kinds !== undefined) {
    const parsed = typeof reference === 'string' ? parseReference(reference) : reference;
    if (Object.hasOwn(options.kinds, parsed.kind))
      return (options.kinds[parsed.kind] as KindResolver)(parsed.path);
  }
  if (!Array.isArray(context)) return context.resolve(reference, options);
  const parsed = typeof reference === 'string' ? parseReference(reference) : reference;
  return scanResolve(context, parsed, options);
}

/**
 * Appends messages to either kind of {@link Context}; returns their indices. For a plain array
 * every message is checked before any is appended, so a bad one leaves the context unchanged.
 *
 * @example
 * ```ts
 * appendMessages(context, [{ type: 'data', data: { a: 1 } }]); // [0]
 * ```
 */
export function appendMessages(context: Context, messages: readonly ContextMessage[]): number[] {
  if (!Array.isArray(context)) return context.appendAll(messages);
  for (const [offset, message] of messages.entries()) {
    try {
      messageWrites(message);
    } catch (error) {
      if (!ContextResolverError.isInstance(error)) throw error;
      throw new ContextResolverError(
        'INVALID_MESSAGE',
        `message ${context.length + offset}: ${error.message}`,
        {
          cause: error,
        },
      );
    }
  }
  const start = context.length;
  context.push(...messages);
  return messages.map((_, offset) => start + offset);
}

/**
 * The messages of either kind of {@link Context}.
 *
 * @example
 * ```ts
 * contextMessages(new ContextLog()); // []
 * ```
 */
export function contextMessages(context: Context): readonly ContextMessage[] {
  return Array.isArray(context) ? context : context.messages;
}
