import { foldWrites, type Resolution, stopsSearch, touches } from './fold.js';
import type { Reference } from './path.js';
import type { ContextMessage } from './schemas.js';
import { type LocatedWrite, messageWrites, type Write } from './writes.js';

/**
 * Options of a resolution.
 *
 * @example
 * ```ts
 * const options: ResolveOptions = { instance: 'worker-1' };
 * ```
 */
export interface ResolveOptions {
  /**
   * Resolve inside this instance's data context: messages without `_instance` (shared) and
   * messages of this instance are visible; other instances' messages are not. Without it only
   * shared messages are visible.
   */
  readonly instance?: string | undefined;
  /**
   * Kinds that resolve outside the context: `†<kind>.path` reads `kinds[kind](path)` instead of
   * the messages (e.g. a workflow's channels). Only `resolveReference`, `evaluateExpression` and
   * `resolveCall` consult it.
   */
  readonly kinds?: Readonly<Record<string, (path: readonly string[]) => Resolution>> | undefined;
}

/**
 * True when `message` is visible from `instance` (see {@link ResolveOptions.instance}).
 *
 * @example
 * ```ts
 * isVisible({ type: 'data', _instance: 'a' }, 'a'); // true
 * isVisible({ type: 'data', _instance: 'a' }, undefined); // false
 * ```
 */
export function isVisible(message: ContextMessage, instance: string | undefined): boolean {
  return message._instance === undefined || message._instance === instance;
}

/**
 * Resolves a reference by scanning the whole message list from newest to oldest, without any
 * index: the straightforward baseline `ContextLog` is measured against. Same result as
 * `ContextLog.resolve`, at a cost proportional to the context length.
 *
 * @example
 * ```ts
 * scanResolve([{ type: 'data', data: { user: { name: 'Alex' } } }], { kind: 'data', path: ['user', 'name'] });
 * // { found: true, value: 'Alex' }
 * ```
 */
export function scanResolve(
  messages: readonly ContextMessage[],
  reference: Reference,
  options: ResolveOptions = {},
): Resolution {
  const window: LocatedWrite[] = [];
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index] as ContextMessage;
    if (message.type !== reference.kind || !isVisible(message, options.instance)) continue;
    let stop = false;
    const writes = messageWrites(message);
    for (let position = writes.length - 1; position >= 0; position--) {
      const write = writes[position] as Write;
      if (!touches(write.path, reference.path)) continue;
      const located = { ...write, messageIndex: index };
      window.push(located);
      stop ||= stopsSearch(located, reference.path);
    }
    if (stop) break;
  }
  return foldWrites(window.reverse(), reference);
}
